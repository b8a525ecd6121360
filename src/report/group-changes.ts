/**
 * Orders a result's changes the way every report shows them: by cluster, then by
 * producer, riskiest first at each step (a producer with a danger finding before one with
 * a caution), so a size-limited report spends its space on what matters most.
 */
import {
  type AnalysisResult,
  type Finding,
  type LevelOrNone,
  type ProducerRef,
  type ResourceChange,
  levelRank,
  maxLevel,
  producerKey,
} from '../model/index.js';

export interface ProducerGroup {
  producer: ProducerRef;
  /** `Kind/namespace/name`. */
  key: string;
  /** The highest level of a finding on this producer or on one of its objects. */
  level: LevelOrNone;
  /** Riskiest first, then in the result's order. */
  changes: ResourceChange[];
}

export interface ClusterGroup {
  cluster: string;
  level: LevelOrNone;
  producers: ProducerGroup[];
}

function resourceKey(cluster: string, kind: string, namespace: string | undefined, name: string) {
  return JSON.stringify([cluster, kind, namespace ?? '', name]);
}

/** The key that ties a finding to the change of the object it is about. */
export function findingResourceKey(finding: Finding): string {
  const r = finding.resource;
  return resourceKey(finding.cluster, r.kind, r.namespace, r.name);
}

export function changeResourceKey(change: ResourceChange): string {
  return resourceKey(change.cluster, change.kind, change.namespace, change.name);
}

/** Changes by their resource key, for finding a finding's producer and file. */
export function changesByResource(changes: readonly ResourceChange[]): Map<string, ResourceChange> {
  const byKey = new Map<string, ResourceChange>();
  for (const change of changes) {
    const key = changeResourceKey(change);
    if (!byKey.has(key)) byKey.set(key, change);
  }
  return byKey;
}

function levelsBy<T>(findings: readonly Finding[], keyOf: (f: Finding) => T | undefined) {
  const levels = new Map<T, LevelOrNone>();
  for (const finding of findings) {
    const key = keyOf(finding);
    if (key !== undefined) levels.set(key, maxLevel(levels.get(key) ?? 'none', finding.level));
  }
  return levels;
}

function byRisk<T extends { level: LevelOrNone }>(a: T, b: T): number {
  return levelRank(b.level) - levelRank(a.level);
}

/** The producer a finding is about, when its resource is a Kustomization or HelmRelease. */
function producerSubject(finding: Finding): ProducerRef | undefined {
  const { kind, namespace, name } = finding.resource;
  if ((kind !== 'Kustomization' && kind !== 'HelmRelease') || namespace === undefined) {
    return undefined;
  }
  return { kind, namespace, name };
}

export function groupChanges(result: AnalysisResult): ClusterGroup[] {
  const resourceLevels = levelsBy(result.findings, findingResourceKey);
  // A producer's level: findings on objects it applies, and findings on the producer itself.
  const producerLevels = levelsBy(
    result.findings.flatMap((f) => {
      const subject = producerSubject(f);
      return subject ? [f, { ...f, producer: subject }] : [f];
    }),
    (f) => (f.producer ? JSON.stringify([f.cluster, producerKey(f.producer)]) : undefined),
  );
  const clusters = new Map<string, Map<string, ProducerGroup>>();
  const ranked: Array<{ change: ResourceChange; level: LevelOrNone }> = result.changes.map(
    (change) => ({ change, level: resourceLevels.get(changeResourceKey(change)) ?? 'none' }),
  );
  ranked.sort(byRisk);
  for (const { change, level } of ranked) {
    let producers = clusters.get(change.cluster);
    if (!producers) clusters.set(change.cluster, (producers = new Map()));
    const key = producerKey(change.producer);
    let group = producers.get(key);
    if (!group) {
      const own = producerLevels.get(JSON.stringify([change.cluster, key])) ?? 'none';
      group = { producer: change.producer, key, level: own, changes: [] };
      producers.set(key, group);
    }
    group.level = maxLevel(group.level, level);
    group.changes.push(change);
  }
  const clusterOrder = new Map(result.clusters.map((c, i) => [c.name, i]));
  const groups: ClusterGroup[] = [...clusters].map(([cluster, producers]) => {
    const list = [...producers.values()].sort(
      (a, b) => byRisk(a, b) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    const level = list.reduce<LevelOrNone>((acc, p) => maxLevel(acc, p.level), 'none');
    return { cluster, level, producers: list };
  });
  const position = (name: string) => clusterOrder.get(name) ?? Number.MAX_SAFE_INTEGER;
  return groups.sort(
    (a, b) =>
      byRisk(a, b) ||
      position(a.cluster) - position(b.cluster) ||
      (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0),
  );
}
