/**
 * Repository text made safe to show: a name or message must not move a terminal's cursor,
 * ring its bell, recolour it, or reorder what a reader sees. Every display format (text,
 * Markdown, check run, HTML) shows strings through here; JSON keeps the data and only
 * escapes the same characters (json.ts).
 */

/**
 * C0 controls (tab and newline aside), DEL, C1 controls, and the bidirectional embedding,
 * override and isolate controls (U+202A-U+202E, U+2066-U+2069).
 */
export const UNSAFE_DISPLAY_CHARS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Replaces each unsafe character with U+FFFD, so the reader still sees that one was there. */
export function displayText(text: string): string {
  return text.replace(UNSAFE_DISPLAY_CHARS, '\ufffd');
}

/**
 * A copy of plain data (an AnalysisResult) with every string, object keys included, passed
 * through displayText. Strings without unsafe characters come back as they were, so the
 * output for ordinary names does not change by a byte.
 */
export function displaySafe<T>(value: T): T {
  return clean(value) as T;
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return displayText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clean);
  // fromEntries defines a `__proto__` key as data, where assignment would set the prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [displayText(key), clean(item)]),
  );
}
