/** Text a tool returns is bounded: past the limit it is cut at a line and says so. */

/** What one text answer may carry; an MCP client puts it in a model's context. */
export const MAX_TEXT_CHARS = 100_000;

export function boundedText(text: string, limit = MAX_TEXT_CHARS): string {
  if (text.length <= limit) return text;
  const cut = text.lastIndexOf('\n', limit);
  const kept = text.slice(0, cut > 0 ? cut : limit);
  return `${kept}\n[truncated: ${text.length - kept.length} of ${text.length} characters left out]\n`;
}
