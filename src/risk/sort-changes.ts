/** The order changes appear in: by cluster, the riskiest object first, then by id. */
import { type Finding, type ResourceChange, compareStrings, levelRank } from '../model/index.js';

function resourceKey(
  cluster: string,
  r: { kind: string; namespace?: string | undefined; name: string },
): string {
  return `${cluster}\0${r.kind}\0${r.namespace ?? ''}\0${r.name}`;
}

/** Cluster, then the most risky first (the highest finding on the object), then id. */
export function sortChanges(
  changes: readonly ResourceChange[],
  findings: readonly Finding[],
): ResourceChange[] {
  const risk = new Map<string, number>();
  for (const f of findings) {
    const key = resourceKey(f.cluster, f.resource);
    risk.set(key, Math.max(risk.get(key) ?? 0, levelRank(f.level)));
  }
  const rank = (c: ResourceChange): number => risk.get(resourceKey(c.cluster, c)) ?? 0;
  return [...changes].sort(
    (a, b) =>
      compareStrings(a.cluster, b.cluster) || rank(b) - rank(a) || compareStrings(a.id, b.id),
  );
}
