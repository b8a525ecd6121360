/**
 * What the HTML page's script reads: the changes grouped into a tree of clusters, same-change
 * groups (groupChanges), producers and objects, with counts. Grouped here rather than in
 * the browser so the page script stays small and the grouping is typed and deterministic.
 */
import {
  type AnalysisResult,
  type ChangeStatus,
  type FieldChange,
  type Finding,
  type Level,
  type ResourceChange,
  maxLevel,
  plural,
  producerKey,
} from '../model/index.js';
import { groupChanges } from './group-changes.js';
import { producerLabel, resourceLabel } from './resource-label.js';
import { sameChangeTitle } from './same-change-title.js';

export type StatusCounts = Record<ChangeStatus, number>;

export interface PageObject {
  status: ChangeStatus;
  contentChanged: boolean;
  cluster: string;
  apiVersion: string;
  /** `Kind/namespace/name`, or `Kind/name` when cluster-scoped (resourceLabel). */
  label: string;
  producer: string;
  previousProducer?: string;
  file?: string;
  fields: FieldChange[];
  diff: string;
  /** The highest level among the findings on this object. */
  level?: Level;
  findings: number;
}

export interface PageProducer {
  label: string;
  counts: StatusCounts;
  /** Indexes into `PageData.objects`, in the result's order (most risky first). */
  objects: number[];
}

/** The same change in several objects: one branch of the tree, before the producers. */
export interface PageGroup {
  /** `The same change in 65 HelmReleases: − spec.install.strategy`. */
  label: string;
  level?: Level;
  counts: StatusCounts;
  /** Indexes into `PageData.objects`, riskiest first; these are in no producer's list. */
  objects: number[];
}

export interface PageCluster {
  name: string;
  path?: string;
  counts: StatusCounts;
  groups: PageGroup[];
  producers: PageProducer[];
}

export interface PageData {
  base: string;
  head: string;
  objects: PageObject[];
  clusters: PageCluster[];
}

function resourceKey(
  cluster: string,
  resource: { kind: string; namespace?: string; name: string },
): string {
  return JSON.stringify([cluster, resource.kind, resource.namespace ?? '', resource.name]);
}

/** For each finding, the index of the change it is about (first match), or -1. */
export function findingTargets(changes: ResourceChange[], findings: Finding[]): number[] {
  const byResource = new Map<string, number>();
  changes.forEach((change, index) => {
    const key = resourceKey(change.cluster, change);
    if (!byResource.has(key)) byResource.set(key, index);
  });
  return findings.map((f) => byResource.get(resourceKey(f.cluster, f.resource)) ?? -1);
}

function emptyCounts(): StatusCounts {
  return { added: 0, removed: 0, changed: 0, moved: 0 };
}

function pageObject(change: ResourceChange, findings: Finding[]): PageObject {
  const object: PageObject = {
    status: change.status,
    contentChanged: change.contentChanged,
    cluster: change.cluster,
    apiVersion: change.apiVersion,
    label: resourceLabel(change),
    producer: producerLabel(change.producer),
    fields: change.fields,
    diff: change.diff,
    findings: findings.length,
  };
  if (change.previousProducer) object.previousProducer = producerLabel(change.previousProducer);
  if (change.file !== undefined) object.file = change.file;
  for (const finding of findings)
    object.level = maxLevel(object.level ?? finding.level, finding.level);
  return object;
}

function groupLabel(changes: readonly ResourceChange[]): string {
  const title = sameChangeTitle(changes);
  const fields = title.fields.map((f) => `${f.sign} ${f.path}`).join(', ');
  const more = title.moreFields > 0 ? ` and ${plural(title.moreFields, 'more field')}` : '';
  return `${title.lead}: ${fields === '' ? title.status : `${fields}${more}`}`;
}

/** Adds each cluster's same-change groups; returns the indexes of the changes they hold. */
function sameGroups(result: AnalysisResult, clusterOf: (name: string) => PageCluster): Set<number> {
  const indexOf = new Map(result.changes.map((change, index) => [change, index]));
  const grouped = new Set<number>();
  for (const cluster of groupChanges(result)) {
    for (const same of cluster.same) {
      const group: PageGroup = {
        label: groupLabel(same.changes),
        counts: emptyCounts(),
        objects: [],
      };
      if (same.level !== 'none') group.level = same.level;
      for (const change of same.changes) {
        const index = indexOf.get(change);
        if (index === undefined) continue;
        group.objects.push(index);
        group.counts[change.status] += 1;
        grouped.add(index);
      }
      clusterOf(cluster.cluster).groups.push(group);
    }
  }
  return grouped;
}

export function pageData(result: AnalysisResult): PageData {
  const targets = findingTargets(result.changes, result.findings);
  const findingsOf = result.changes.map((): Finding[] => []);
  result.findings.forEach((finding, i) => {
    const target = targets[i];
    if (target !== undefined && target >= 0) findingsOf[target]?.push(finding);
  });
  const objects = result.changes.map((change, i) => pageObject(change, findingsOf[i] ?? []));

  const clusters = new Map<string, PageCluster>();
  const producers = new Map<string, Map<string, PageProducer>>();
  const clusterOf = (name: string): PageCluster => {
    let cluster = clusters.get(name);
    if (!cluster) {
      cluster = { name, counts: emptyCounts(), groups: [], producers: [] };
      clusters.set(name, cluster);
      producers.set(name, new Map());
    }
    return cluster;
  };
  for (const summary of result.clusters) clusterOf(summary.name).path = summary.path;
  // Clusters named only by their changes come after the listed ones, in name order.
  const unlisted = [...new Set(result.changes.map((c) => c.cluster))]
    .filter((name) => !clusters.has(name))
    .sort();
  for (const name of unlisted) clusterOf(name);

  const grouped = sameGroups(result, clusterOf);
  result.changes.forEach((change, index) => {
    const cluster = clusterOf(change.cluster);
    cluster.counts[change.status] += 1;
    if (grouped.has(index)) return;
    const byKey = producers.get(change.cluster) ?? new Map<string, PageProducer>();
    const key = producerKey(change.producer);
    let producer = byKey.get(key);
    if (!producer) {
      producer = { label: producerLabel(change.producer), counts: emptyCounts(), objects: [] };
      byKey.set(key, producer);
    }
    producer.objects.push(index);
    producer.counts[change.status] += 1;
  });
  for (const [name, cluster] of clusters) {
    const byKey = producers.get(name) ?? new Map<string, PageProducer>();
    cluster.producers = [...byKey.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, producer]) => producer);
  }
  return {
    base: result.base.sha.slice(0, 12),
    head: result.head.sha.slice(0, 12),
    objects,
    clusters: [...clusters.values()],
  };
}
