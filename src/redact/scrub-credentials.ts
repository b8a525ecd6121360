/**
 * Credentials (tokens, keys, the Authorization header a token makes) out of text that
 * leaves the process: error messages and log lines. One marker everywhere, in square
 * brackets: it reads the same in a log line, in Markdown and in HTML, where an angle-bracket
 * marker would be taken for a tag and vanish.
 */

/** What stands where a credential was. */
export const CREDENTIAL_MARKER = '[redacted]';

/** `text` with every occurrence of each non-empty secret replaced by the marker. */
export function scrubCredentials(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== '') out = out.split(secret).join(CREDENTIAL_MARKER);
  }
  return out;
}
