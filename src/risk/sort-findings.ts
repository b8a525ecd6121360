/** The one order findings appear in everywhere: most severe first, then by place. */
import { type Finding, levelRank } from '../model/index.js';

function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

export function compareFindings(a: Finding, b: Finding): number {
  return (
    levelRank(b.level) - levelRank(a.level) ||
    compareText(a.cluster, b.cluster) ||
    compareText(a.resource.kind, b.resource.kind) ||
    compareText(a.resource.namespace ?? '', b.resource.namespace ?? '') ||
    compareText(a.resource.name, b.resource.name) ||
    compareText(a.rule, b.rule) ||
    compareText(a.message, b.message)
  );
}

export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(compareFindings);
}
