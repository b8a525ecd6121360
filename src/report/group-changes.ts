/**
 * Orders a result's changes the way every report shows them: by cluster, then by
 * producer, riskiest first at each step (a producer with a danger finding before one with
 * a caution), so a size-limited report spends its space on what matters most. The same
 * change in several objects of a cluster (sameChangeKeys) is one group, shown once; a
 * change with a finding above info stays on its own, so its diff is never one of many.
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
  sameChangeKeys,
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

/** The same change in two or more objects of one cluster. */
export interface SameChangeGroup {
  /** The first change's id: stable, for ordering and keys. */
  key: string;
  /** The highest of its members' levels. */
  level: LevelOrNone;
  /** Riskiest first, then in the result's order; reports show the first one's diff. */
  changes: ResourceChange[];
  /**
   * Each member's level, in the order of `changes`: its own findings' (info at most) or its
   * producer's, whichever is higher.
   */
  levels: LevelOrNone[];
}

export interface ClusterGroup {
  cluster: string;
  level: LevelOrNone;
  /** Producers with their changes that are not in a SameChangeGroup. */
  producers: ProducerGroup[];
  same: SameChangeGroup[];
}

/** One part of a cluster as reports list it: a same-change group or a producer. */
export type ClusterSection =
  | { type: 'same'; level: LevelOrNone; group: SameChangeGroup }
  | { type: 'producer'; level: LevelOrNone; group: ProducerGroup };

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

/** Changes that may share one diff: no finding above info is about them. */
function groupable(level: LevelOrNone): boolean {
  return levelRank(level) <= levelRank('info');
}

interface Ranked {
  change: ResourceChange;
  /** The level of the findings on the change's own object. */
  level: LevelOrNone;
}

/**
 * Per cluster: groups of two or more groupable changes that are the same change. A member
 * counts at its own level or its producer's, whichever is higher, as it would in its
 * producer's group: grouping must not lower where a risky producer's objects are shown.
 */
function sameChanges(
  ranked: readonly Ranked[],
  producerLevel: (change: ResourceChange) => LevelOrNone,
): Map<string, SameChangeGroup[]> {
  const buckets = new Map<string, Ranked[]>();
  const keyOf = sameChangeKeys();
  for (const item of ranked) {
    if (!groupable(item.level)) continue;
    const key = JSON.stringify([item.change.cluster, keyOf(item.change)]);
    const bucket = buckets.get(key);
    if (bucket) bucket.push(item);
    else buckets.set(key, [item]);
  }
  const byCluster = new Map<string, SameChangeGroup[]>();
  for (const members of buckets.values()) {
    const [first] = members;
    if (!first || members.length < 2) continue;
    const levels = members.map((m) => maxLevel(m.level, producerLevel(m.change)));
    const order = members.map((m, i) => ({ change: m.change, level: levels[i] ?? m.level }));
    order.sort(byRisk);
    const group: SameChangeGroup = {
      key: first.change.id,
      level: levels.reduce<LevelOrNone>((acc, l) => maxLevel(acc, l), 'none'),
      changes: order.map((m) => m.change),
      levels: order.map((m) => m.level),
    };
    const list = byCluster.get(first.change.cluster);
    if (list) list.push(group);
    else byCluster.set(first.change.cluster, [group]);
  }
  return byCluster;
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
  const ranked: Ranked[] = result.changes.map((change) => ({
    change,
    level: resourceLevels.get(changeResourceKey(change)) ?? 'none',
  }));
  ranked.sort(byRisk);
  const same = sameChanges(
    ranked,
    (change) =>
      producerLevels.get(JSON.stringify([change.cluster, producerKey(change.producer)])) ?? 'none',
  );
  const grouped = new Set([...same.values()].flat().flatMap((g) => g.changes));
  const clusters = new Map<string, Map<string, ProducerGroup>>();
  for (const name of same.keys()) clusters.set(name, new Map());
  for (const { change, level } of ranked) {
    let producers = clusters.get(change.cluster);
    if (!producers) clusters.set(change.cluster, (producers = new Map()));
    if (grouped.has(change)) continue;
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
    const sameList = (same.get(cluster) ?? []).sort(
      (a, b) =>
        byRisk(a, b) ||
        b.changes.length - a.changes.length ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    const level = [...list, ...sameList].reduce<LevelOrNone>(
      (acc, p) => maxLevel(acc, p.level),
      'none',
    );
    return { cluster, level, producers: list, same: sameList };
  });
  const position = (name: string) => clusterOrder.get(name) ?? Number.MAX_SAFE_INTEGER;
  return groups.sort(
    (a, b) =>
      byRisk(a, b) ||
      position(a.cluster) - position(b.cluster) ||
      (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0),
  );
}

/**
 * A cluster's groups in the order reports list them: riskiest first; at one level the
 * same-change groups (largest first) before the producers, since each stands for many
 * objects in little space.
 */
export function clusterSections(cluster: ClusterGroup): ClusterSection[] {
  const sections: ClusterSection[] = [
    ...cluster.same.map((group) => ({ type: 'same' as const, level: group.level, group })),
    ...cluster.producers.map((group) => ({ type: 'producer' as const, level: group.level, group })),
  ];
  // A stable sort: same groups stay before producers of their level, each in its order.
  return sections.sort(byRisk);
}

/** Every change of a cluster group, grouped or not. */
export function clusterChanges(cluster: ClusterGroup): ResourceChange[] {
  return [
    ...cluster.same.flatMap((g) => g.changes),
    ...cluster.producers.flatMap((p) => p.changes),
  ];
}
