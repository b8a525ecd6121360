/** The machine-readable report: the whole AnalysisResult as deterministic JSON. */
import type { AnalysisResult } from '../model/index.js';
import { UNSAFE_DISPLAY_CHARS } from './display-text.js';
import { stableStringify } from './stable-stringify.js';

/**
 * The result as JSON (schema/analysis-result.schema.json): keys sorted at every depth,
 * two-space indent, a trailing newline. The same result always gives the same bytes, so
 * stored reports can be compared and cached by content.
 *
 * JSON is data, so names are kept as they are; but it is also printed to terminals, so the
 * characters a display would refuse are written as `\uXXXX` escapes. JSON.stringify
 * escapes C0 controls itself; DEL, C1 and bidi controls can only occur inside strings,
 * where the escape means the same character, so parsing gives back the same result.
 */
export function renderJson(result: AnalysisResult): string {
  const text = stableStringify(result, '  ').replace(
    UNSAFE_DISPLAY_CHARS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${text}\n`;
}
