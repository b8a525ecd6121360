/**
 * The last pass before a result leaves the analysis: every string in it (object names and
 * ids, finding messages, render errors, the headline, image and chart tables, diffs) with
 * each known Secret value, derived text and credential shape hidden. Rules, summaries and
 * tools quote what they read, and an object's name may itself be built from a Secret
 * (`name: app-${TOKEN}`); one pass here keeps every current and future field covered.
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
