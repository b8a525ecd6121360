/**
 * Where `/fluxlens render` counts in a comment: as a line of its own in the text a reader
 * sees as prose. Inside a fenced or indented code block, a block quote or an HTML comment
 * it is shown or quoted, not asked for, so it does not count.
 */

/**
 * The command alone on its line. At most three spaces before it: four, or a tab, make the
 * line indented code, and `>` before it makes it a quote, so neither matches.
 */
const COMMAND = /^ {0,3}\/fluxlens[ \t]+render[ \t]*$/;
/** An opening code fence: three or more backticks or tildes, perhaps a language after. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A closing fence has nothing after its marker. */
const CLOSING_FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const QUOTE = /^ {0,3}>/;
/** A bound on the work one comment can ask for; GitHub caps comments at 65,536 characters. */
const MAX_BODY = 65_536;

export function hasRenderCommand(body: string | null): boolean {
  if (body === null) return false;
  // Comments go first, closed or not: an unclosed one hides the rest of the text.
  const visible = body.slice(0, MAX_BODY).replace(/<!--[\s\S]*?(?:-->|$)/g, '');
  let fence: string | undefined;
  let inQuote = false;
  for (const line of visible.split(/\r?\n/)) {
    if (fence !== undefined) {
      const closing = CLOSING_FENCE.exec(line)?.[1];
      if (closing !== undefined && closing[0] === fence[0] && closing.length >= fence.length) {
        fence = undefined;
      }
      continue;
    }
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      fence = marker;
      inQuote = false;
      continue;
    }
    if (QUOTE.test(line)) {
      inQuote = true;
      continue;
    }
    // A line right under a quote, with no blank line between, continues the quote.
    if (line.trim() === '') inQuote = false;
    else if (!inQuote && COMMAND.test(line)) return true;
  }
  return false;
}
