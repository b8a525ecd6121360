/** Bounded, single-line text for reports: untrusted strings never set a report's size. */

/** True for the first half of a UTF-16 surrogate pair, which must not end a cut. */
function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Cuts `text` to at most `max` characters, ending with "…" when something was cut.
 * Never splits a surrogate pair, so the result is always valid UTF-16.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  let end = max - 1;
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** Collapses every run of whitespace (newlines included) into one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
