/** The verdict: the highest level, counts, one headline, and whether the change is routine. */
import {
  type Finding,
  LEVELS,
  type Level,
  type ResourceChange,
  type Verdict,
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

export function computeVerdict(
  findings: Finding[],
  changes: ResourceChange[],
  errorsIntroduced: number,
): Verdict {
  const counts: Record<Level, number> = { info: 0, caution: 0, danger: 0 };
  for (const finding of findings) counts[finding.level] += 1;
  const level = [...LEVELS].reverse().find((l) => counts[l] > 0) ?? 'none';
  const routine =
    changes.length > 0 &&
    errorsIntroduced === 0 &&
    counts.caution === 0 &&
    counts.danger === 0 &&
    changes.every(isRoutineChange);
  const sorted = sortFindings(findings);
  return { level, headline: headline(sorted, changes, errorsIntroduced, routine), routine, counts };
}
