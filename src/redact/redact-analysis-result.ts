/**
 * The last pass before a result leaves the analysis: every string in it (object names and
 * ids, finding messages, the headline, image and chart tables, diffs) with each known Secret
 * value and derived text hidden. Rules and summaries quote what they read, and an object's
 * name may itself be built from a Secret (`name: app-${TOKEN}`); hiding values here keeps
 * every current and future field of the result covered, not just the manifests.
 */
import type { AnalysisResult } from '../model/index.js';
import { REDACTED } from './secret-markers.js';
import { type SecretValueIndex, redactText } from './redact-text.js';

/** Fields that hold fixed vocabulary or commit ids, never text a repository wrote. */
const VOCABULARY = new Set(['schemaVersion', 'sha', 'level', 'status', 'change', 'rule', 'side']);

export function redactAnalysisResult(
  result: AnalysisResult,
  secrets: SecretValueIndex,
): AnalysisResult {
  if (secrets.byPrefix.size === 0) return result;
  const { timings, ...rest } = result;
  return { ...(redactStrings(rest, secrets) as typeof rest), timings };
}

function redactStrings(value: unknown, secrets: SecretValueIndex): unknown {
  if (typeof value === 'string') return redactText(value, REDACTED, secrets);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, secrets));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = VOCABULARY.has(key) ? item : redactStrings(item, secrets);
  }
  return out;
}
