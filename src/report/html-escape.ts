/**
 * Escaping for HTML, in the HTML report and in the raw HTML lines of the Markdown comment:
 * every string from a repository or a PR is untrusted.
 */
import { stableStringify } from './stable-stringify.js';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe in element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

const SCRIPT_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON safe inside `<script type="application/json">`: no `</script>` or `<!--` can end or
 * bend the element, and the line separators stay escaped for any consumer that evaluates
 * it as JavaScript. Those characters only occur inside JSON strings, where `\uXXXX` means
 * the same thing, so `JSON.parse` of the element's text gives back the value.
 */
export function scriptJson(value: unknown): string {
  return stableStringify(value).replace(/[<>&\u2028\u2029]/g, (c) => SCRIPT_ESCAPES[c] ?? c);
}
