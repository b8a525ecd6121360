/** The machine-readable report: the whole AnalysisResult as deterministic JSON. */
import type { AnalysisResult } from '../model/index.js';
import { stableStringify } from './stable-stringify.js';

/**
 * The result as JSON (schema/analysis-result.schema.json): keys sorted at every depth,
 * two-space indent, a trailing newline. The same result always gives the same bytes, so
 * stored reports can be compared and cached by content.
 */
export function renderJson(result: AnalysisResult): string {
  return `${stableStringify(result, '  ')}\n`;
}
