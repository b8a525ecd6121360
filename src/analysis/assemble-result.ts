/** The parts of an AnalysisResult that follow from the diffs and the findings. */
import type { ResolvedRevisions } from '../git/index.js';
import {
  ANALYSIS_SCHEMA_VERSION,
  compareStrings,
  isUnavailable,
  producerKey,
  toRef,
  type AnalysisError,
  type AnalysisResult,
  type ChangedFiles,
  type ClusterDiff,
  type ClusterSummary,
  type Finding,
  type RenderedCluster,
  type RenderError,
} from '../model/index.js';
import { computeVerdict, sortChanges, sortFindings, unassessedProducers } from '../risk/index.js';

export interface RenderedPair {
  name: string;
  path: string;
  base: RenderedCluster;
  head: RenderedCluster;
}

export interface DiffedCluster extends RenderedPair {
  diff: ClusterDiff;
}

export function assembleResult(
  revisions: ResolvedRevisions,
  clusters: readonly DiffedCluster[],
  unsorted: readonly Finding[],
  labels?: { base: string; head: string },
  files?: ChangedFiles,
): AnalysisResult {
  const findings = sortFindings(unsorted);
  const changes = sortChanges(
    clusters.flatMap((c) => c.diff.changes),
    findings,
  );
  const introduced = clusters.reduce((n, c) => n + c.diff.summary.errorsIntroduced.length, 0);
  const summaries: ClusterSummary[] = clusters.map((c) => ({
    name: c.name,
    path: c.path,
    ...c.diff.summary,
    unassessed: unassessedProducers(c),
    ...bootstrapAssumed(c),
  }));
  const unassessed = summaries.flatMap((s) => s.unassessed ?? []);
  return {
    schemaVersion: ANALYSIS_SCHEMA_VERSION,
    base: { rev: labels?.base ?? revisions.base.rev, sha: revisions.base.sha },
    head: { rev: labels?.head ?? revisions.head.rev, sha: revisions.head.sha },
    verdict: computeVerdict(findings, changes, introduced, unassessed, files?.unread.length),
    summary: {
      added: sum(summaries, 'added'),
      removed: sum(summaries, 'removed'),
      changed: sum(summaries, 'changed'),
      moved: sum(summaries, 'moved'),
      findings: findings.length,
    },
    clusters: summaries,
    changes,
    findings,
    errors: analysisErrors(clusters),
    ...(files ? { files } : {}),
    timings: {},
  };
}

/** On which sides the render applied the cluster's folder as `flux bootstrap` does. */
function bootstrapAssumed(c: RenderedPair): Pick<ClusterSummary, 'bootstrapAssumed'> {
  const assumed = (cluster: RenderedCluster) => cluster.producers.some((p) => p.byConvention);
  const base = assumed(c.base);
  const head = assumed(c.head);
  if (base && head) return { bootstrapAssumed: 'both' };
  if (base || head) return { bootstrapAssumed: base ? 'base' : 'head' };
  return {};
}

function analysisErrors(clusters: readonly DiffedCluster[]): AnalysisError[] {
  const errors: AnalysisError[] = [];
  for (const c of clusters) {
    // Messages may quote Secret values: analyze hides them in the whole result, last.
    const publishable = (e: RenderError, side: 'base' | 'head', introduced: boolean) => ({
      producer: toRef(e.producer),
      ...(e.file !== undefined ? { file: e.file } : {}),
      message: e.message,
      // The machine-readable cause, so that reports group errors without reading words.
      ...(e.code !== undefined ? { code: e.code } : {}),
      ...(e.offline !== undefined ? { offline: e.offline } : {}),
      cluster: c.name,
      side,
      introduced,
    });
    // The diff decides per producer: one that rendered at base (or is new) and fails now.
    const introduced = new Set(c.diff.summary.errorsIntroduced.map((e) => producerKey(e.producer)));
    for (const e of c.base.errors) errors.push(publishable(e, 'base', false));
    for (const e of c.head.errors) {
      const counted = !isUnavailable(e) && introduced.has(producerKey(e.producer));
      errors.push(publishable(e, 'head', counted));
    }
  }
  return errors.sort(
    (a, b) =>
      compareStrings(a.cluster, b.cluster) ||
      compareStrings(a.side, b.side) ||
      compareStrings(producerKey(a.producer), producerKey(b.producer)) ||
      compareStrings(a.file ?? '', b.file ?? '') ||
      compareStrings(a.message, b.message),
  );
}

function sum(
  summaries: readonly ClusterSummary[],
  key: 'added' | 'removed' | 'changed' | 'moved',
): number {
  return summaries.reduce((total, s) => total + s[key], 0);
}
