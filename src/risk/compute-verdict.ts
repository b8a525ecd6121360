/**
 * The verdict: the highest level, counts, one headline, and whether the change is routine.
 * Producers the PR changes that could not be rendered (unassessed) lead the headline, lift
 * the level to at least caution and rule out routine: an analysis that skipped part of the
 * change must not read as "OK". They add no finding, so the gate (exit code) ignores them.
 * Changed files nothing rendered reads follow them the same way, at info: a README is the
 * usual one, and a file only an unrendered object applies the one that matters.
 */
import {
  type AnalysisVerdict,
  type Finding,
  LEVELS,
  type Level,
  type ResourceChange,
  type UnassessedProducer,
  maxLevel,
  plural,
} from '../model/index.js';
import { RULES } from './registry.js';
import { isRoutineChange } from './routine-change.js';
import { sortFindings } from './sort-findings.js';
import { describe } from './kit/index.js';

function leadingPhrase(finding: Finding): string {
  const rule = RULES.find((r) => r.id === finding.rule);
  if (!rule) return finding.message;
  return `${rule.headline.replace('{resource}', describe(finding.resource))} (${rule.label})`;
}

function changeCounts(changes: readonly ResourceChange[]): string {
  const parts = (['added', 'removed', 'changed', 'moved'] as const)
    .map((status) => [status, changes.filter((c) => c.status === status).length] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${count} ${status}`);
  return parts.join(', ');
}

function headline(
  sorted: readonly Finding[],
  changes: readonly ResourceChange[],
  errorsIntroduced: number,
  routine: boolean,
): string {
  const [top, ...rest] = sorted;
  if (routine) {
    // Routine allows info findings only; they do not change what the change is.
    const notes = sorted.length > 0 ? `, with ${plural(sorted.length, 'info finding')}` : '';
    return `Routine: only image tags, digests and chart versions change (${plural(changes.length, 'object')})${notes}`;
  }
  if (top) {
    const more = rest.length > 0 ? `, and ${plural(rest.length, 'more finding')}` : '';
    return `${leadingPhrase(top)}${more}`;
  }
  if (errorsIntroduced > 0) return `Introduces ${plural(errorsIntroduced, 'render error')}`;
  if (changes.length === 0) return 'No changes to the rendered cluster';
  return `No risky changes found in ${plural(changes.length, 'changed object')} (${changeCounts(changes)})`;
}

/** "not assessed: 2 changed HelmReleases could not be rendered: chart unavailable". */
export function unassessedHeadline(unassessed: readonly UnassessedProducer[]): string {
  const kinds = new Set(unassessed.map((u) => u.producer.kind));
  const [kind] = kinds;
  // A producer whose source is nowhere is listed whether or not the PR changes it.
  const changed = unassessed.some((u) => u.reason !== 'source not found') ? 'changed ' : '';
  const noun = `${changed}${kinds.size === 1 && kind !== undefined ? kind : 'producer'}`;
  const reasons = [...new Set(unassessed.map((u) => u.reason))].sort().join(', ');
  return `not assessed: ${plural(unassessed.length, noun)} could not be rendered: ${reasons}`;
}

/** "2 changed files are read by nothing fluxlens renders". */
export function unreadHeadline(unread: number): string {
  return `${plural(unread, 'changed file')} ${unread === 1 ? 'is' : 'are'} read by nothing fluxlens renders`;
}

/**
 * `unread`: how many changed files nothing fluxlens renders reads (ChangedFiles.unread);
 * while any is, the level is at least info, nothing is routine and the headline says so.
 */
export function computeVerdict(
  findings: Finding[],
  changes: ResourceChange[],
  errorsIntroduced: number,
  unassessed: readonly UnassessedProducer[] = [],
  unread = 0,
): AnalysisVerdict {
  const counts: Record<Level, number> = { info: 0, caution: 0, danger: 0 };
  for (const finding of findings) counts[finding.level] += 1;
  const highest = [...LEVELS].reverse().find((l) => counts[l] > 0) ?? 'none';
  const assessed = unassessed.length > 0 ? maxLevel(highest, 'caution') : highest;
  const level = unread > 0 ? maxLevel(assessed, 'info') : assessed;
  const routine =
    unassessed.length === 0 &&
    unread === 0 &&
    changes.length > 0 &&
    errorsIntroduced === 0 &&
    counts.caution === 0 &&
    counts.danger === 0 &&
    changes.every(isRoutineChange);
  const sorted = sortFindings(findings);
  const usual = headline(sorted, changes, errorsIntroduced, routine);
  const leads = [
    ...(unassessed.length > 0 ? [unassessedHeadline(unassessed)] : []),
    ...(unread > 0 ? [unreadHeadline(unread)] : []),
  ];
  return {
    level,
    headline: [...leads, usual].join('; '),
    routine,
    counts,
    unassessed: unassessed.length,
    ...(unread > 0 ? { unread } : {}),
  };
}
