/**
 * An acknowledgement of failing findings (the check run's requested action): which findings
 * it must cover, whether it does, and the lines that say who gave it in the check run's
 * summary and the comment.
 */
import { type AnalysisResult, type FailOn, findingId, levelRank } from '../model/index.js';
import { escapeMarkdown } from './escape-markdown.js';

/** The ids of the findings that fail the gate (at or above `failOn`), sorted, each once. */
export function failingFindingIds(result: AnalysisResult, failOn: FailOn): string[] {
  if (failOn === 'never') return [];
  const ids = result.findings
    .filter((f) => levelRank(f.level) >= levelRank(failOn))
    .map((f) => findingId(f));
  return [...new Set(ids)].sort();
}

/** Every finding that fails the gate is one the acknowledgement names. */
export function isAcknowledged(result: AnalysisResult, failOn: FailOn): boolean {
  const ack = result.acknowledgement;
  if (ack === undefined) return false;
  const named = new Set(ack.findings);
  const failing = failingFindingIds(result, failOn);
  return failing.length > 0 && failing.every((id) => named.has(id));
}

/** Shown first in the summary and the comment; empty without an acknowledgement. */
export function acknowledgementSection(result: AnalysisResult): string {
  const ack = result.acknowledgement;
  if (ack === undefined) return '';
  const count = ack.findings.length;
  const ids = ack.findings.map((id) => `\`${id}\``).join(', ');
  const carried =
    ack.carriedFrom === undefined ? '' : ` on ${ack.carriedFrom.slice(0, 12)}, carried over`;
  return (
    `> **Acknowledged** by @${escapeMarkdown(ack.by)} at ${escapeMarkdown(ack.at)}${carried}: ` +
    `${String(count)} ${count === 1 ? 'finding' : 'findings'} (${ids}).\n\n`
  );
}
