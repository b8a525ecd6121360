/**
 * One analysis: a repository, a base and a head in; an AnalysisResult out. Resolves the
 * revisions, reads the policy from the base, renders every cluster at both revisions,
 * diffs and judges them. Used by the CLI and the worker; it must not publish anything.
 */
import type { AnalysisError, AnalysisResult, ClusterSummary } from '../model/analysis.js';
import { ANALYSIS_SCHEMA_VERSION } from '../model/analysis.js';
import {
  clusterEntries,
  clustersAddedAtHead,
  type ClusterEntry,
} from '../policy/cluster-entries.js';
import { diffClusters, REDACTED, redactText, secretValuesOf } from '../diff/index.js';
import type { ClusterDiff, ResourceChange } from '../model/change.js';
import { FluxlensError, UsageError } from '../errors.js';
import {
  readFileAtRevision,
  resolveRevisions,
  treeEntry,
  type ResolvedRevisions,
} from '../git/index.js';
import {
  objectId,
  producerKey,
  toRef,
  type Producer,
  type RenderedCluster,
  type RenderEngine,
  type RenderError,
  type RenderProgress,
  type RenderSettings,
  type SourceMapping,
} from '../render/index.js';
import { computeVerdict, evaluateRisk, sortFindings } from '../risk/index.js';
import { parsePolicy, POLICY_FILE } from '../policy/parse-policy.js';
import type { Policy } from '../policy/types.js';
import type { Finding, Level } from '../model/finding.js';
import type { ToolRunner } from '../tool-runner.js';

export interface AnalysisRequest {
  /** A git repository (its root); both revisions are read from its object store. */
  repoDir: string;
  /** The base branch; default: the upstream default branch. The merge-base with head is used. */
  base?: string;
  /** Default `HEAD`. */
  head?: string;
  /** Entry folders, each one cluster; used when the policy names no clusters. */
  paths: string[];
  engine: RenderEngine;
  sources: readonly SourceMapping[];
  repoUrl?: string;
}

export interface AnalysisDeps {
  runner: ToolRunner;
  /** The engine's settings; their tool timeout bounds the git commands run here too. */
  settings: RenderSettings;
  /** Milliseconds, for `timings`; a monotonic clock by default. */
  now?: () => number;
  /** Told which commits are compared, before rendering starts. */
  onRevisions?: (revisions: ResolvedRevisions) => void;
  onProgress?: (progress: AnalysisProgress) => void;
}

type Side = 'base' | 'head';

export interface AnalysisProgress extends RenderProgress {
  cluster: string;
  side: Side;
}

interface RenderedPair extends ClusterEntry {
  base: RenderedCluster;
  head: RenderedCluster;
}

interface DiffedCluster extends RenderedPair {
  diff: ClusterDiff;
}

const MAX_POLICY_BYTES = 256 * 1024;
const LEVEL_RANK: Record<Level, number> = { info: 1, caution: 2, danger: 3 };
const EMPTY_CLUSTER: RenderedCluster = { producers: [], objects: [], errors: [], tools: {} };

export async function analyze(
  request: AnalysisRequest,
  deps: AnalysisDeps,
): Promise<AnalysisResult> {
  return (await runAnalysis(request, deps)).result;
}

/** `analyze`, plus what the caller acts on: the base's policy (its failOn) and the revisions. */
export async function runAnalysis(
  request: AnalysisRequest,
  deps: AnalysisDeps,
): Promise<{ result: AnalysisResult; policy: Policy; revisions: ResolvedRevisions }> {
  const clock = new Stopwatch(deps.now ?? (() => performance.now()));
  const git = { timeoutMs: deps.settings.toolTimeoutMs };

  const revisions = await clock.time('git', () =>
    resolveRevisions(deps.runner, request.repoDir, request, git),
  );
  deps.onRevisions?.(revisions);
  const readPolicy = (sha: string) =>
    readFileAtRevision(deps.runner, request.repoDir, sha, POLICY_FILE, {
      ...git,
      maxBytes: MAX_POLICY_BYTES,
    });
  const policy = await clock.time('policy', async () =>
    parsePolicy((await readPolicy(revisions.base.sha)) ?? ''),
  );
  const added = await clock.time('policy', () =>
    clustersAddedAtHead(policy, () => readPolicy(revisions.head.sha)),
  );

  const rendered: RenderedPair[] = [];
  for (const entry of clusterEntries([...policy.clusters, ...added], request.paths)) {
    rendered.push(await renderPair(request, deps, entry, revisions, clock));
  }
  const clusters = clock.timeSync('diff', () =>
    rendered.map((r) => ({
      ...r,
      diff: diffClusters(r.base, r.head, { cluster: r.name, normalize: policy.normalize }),
    })),
  );
  const findings = clock.timeSync('risk', () => evaluateRisk({ clusters, policy }));
  const result = assemble(revisions, clusters, findings);
  result.timings = clock.finish();
  return { result, policy, revisions };
}

/** The parts of an AnalysisResult that follow from the diffs and the findings. */
function assemble(
  revisions: ResolvedRevisions,
  clusters: readonly DiffedCluster[],
  unsorted: readonly Finding[],
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
  }));
  return {
    schemaVersion: ANALYSIS_SCHEMA_VERSION,
    base: { rev: revisions.base.rev, sha: revisions.base.sha },
    head: { rev: revisions.head.rev, sha: revisions.head.sha },
    verdict: computeVerdict(findings, changes, introduced),
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
    timings: {},
  };
}

/** Milliseconds per step, summed over clusters, plus the total. */
class Stopwatch {
  readonly #timings: Record<string, number> = {};
  readonly #started: number;

  constructor(private readonly now: () => number) {
    this.#started = now();
  }

  async time<T>(step: string, run: () => Promise<T>): Promise<T> {
    const start = this.now();
    try {
      return await run();
    } finally {
      this.#add(step, start);
    }
  }

  timeSync<T>(step: string, run: () => T): T {
    const start = this.now();
    try {
      return run();
    } finally {
      this.#add(step, start);
    }
  }

  finish(): Record<string, number> {
    this.#add('total', this.#started);
    return { ...this.#timings };
  }

  #add(step: string, start: number): void {
    this.#timings[step] = (this.#timings[step] ?? 0) + (this.now() - start);
  }
}

/** Both sides of one cluster; a side where the cluster does not exist renders as empty. */
async function renderPair(
  request: AnalysisRequest,
  deps: AnalysisDeps,
  entry: ClusterEntry,
  revisions: ResolvedRevisions,
  clock: Stopwatch,
): Promise<RenderedPair> {
  const side = (name: Side, sha: string) =>
    clock.time(`render-${name}`, () => renderCluster(request, deps, entry, name, sha));
  const base = await side('base', revisions.base.sha);
  const head = await side('head', revisions.head.sha);
  if (typeof base === 'string' && typeof head === 'string') {
    const at = (r: { sha: string }) => r.sha.slice(0, 12);
    const what =
      base === 'missing' && head === 'missing'
        ? `'${entry.path}' is not a folder`
        : `no Flux Kustomization or HelmRelease under '${entry.path}'`;
    throw new UsageError(
      `cluster '${entry.name}': ${what} at base ${at(revisions.base)} or head ${at(revisions.head)}`,
    );
  }
  const baseCluster = typeof base === 'string' ? EMPTY_CLUSTER : base;
  const headCluster = typeof head === 'string' ? EMPTY_CLUSTER : head;
  return { ...entry, base: baseCluster, head: keepLastApplied(baseCluster, headCluster) };
}

/**
 * The head cluster as Flux leaves it: a Kustomization that fails to build is neither
 * applied nor pruned, and helm-controller leaves a release it cannot render as it was, so
 * their objects stay as last applied, and so do the producers they defined at base (and
 * theirs). A producer not rendered at head (skipped) has objects nobody knows. Both keep
 * their objects from base: they pair as unchanged, not as removed.
 */
function keepLastApplied(base: RenderedCluster, head: RenderedCluster): RenderedCluster {
  const atHead = new Set(head.producers.map(producerKey));
  const frozen = new Set(
    head.producers.filter((p) => p.error !== undefined || p.skipped !== undefined).map(producerKey),
  );
  if (frozen.size === 0) return head;
  const carried: Producer[] = [];
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of base.producers) {
      const key = producerKey(p);
      if (frozen.has(key) || atHead.has(key) || !('parent' in p.definedIn)) continue;
      if (!frozen.has(producerKey(p.definedIn.parent))) continue;
      frozen.add(key);
      carried.push(p);
      grew = true;
    }
  }
  const held = new Set(head.objects.map((o) => objectId(o.manifest)));
  const objects = base.objects.filter(
    (o) => frozen.has(producerKey(o.producer)) && !held.has(objectId(o.manifest)),
  );
  const carriedKeys = new Set(carried.map(producerKey));
  const errors = base.errors.filter((e) => carriedKeys.has(producerKey(e.producer)));
  if (objects.length === 0 && carried.length === 0) return head;
  return {
    ...head,
    producers: [...head.producers, ...carried],
    objects: [...head.objects, ...objects],
    errors: [...head.errors, ...errors],
  };
}

/**
 * One side of one cluster; 'missing' (no such folder) or 'empty' (no Flux objects in it)
 * when the cluster does not exist at that revision (added or removed by the PR), so the
 * other side diffs against nothing.
 */
async function renderCluster(
  request: AnalysisRequest,
  deps: AnalysisDeps,
  entry: ClusterEntry,
  side: Side,
  sha: string,
): Promise<RenderedCluster | 'missing' | 'empty'> {
  const found = await treeEntry(deps.runner, request.repoDir, sha, entry.path, {
    timeoutMs: deps.settings.toolTimeoutMs,
  });
  if (found?.type !== 'tree') return 'missing';
  try {
    return await request.engine.render(
      {
        repoDir: request.repoDir,
        rev: sha,
        entry: entry.path,
        sources: request.sources,
        ...(request.repoUrl !== undefined ? { repoUrl: request.repoUrl } : {}),
      },
      deps.onProgress && ((p) => deps.onProgress?.({ ...p, cluster: entry.name, side })),
    );
  } catch (err) {
    if (err instanceof FluxlensError && err.code === 'no-flux-objects') return 'empty';
    throw err;
  }
}

function analysisErrors(clusters: readonly DiffedCluster[]): AnalysisError[] {
  const errors: AnalysisError[] = [];
  for (const c of clusters) {
    // A message may quote a value substitution took from a Secret: hide those too.
    const secrets = secretValuesOf(c.base, c.head);
    const publishable = (e: RenderError, cluster: string, side: Side, introduced: boolean) => ({
      producer: toRef(e.producer),
      ...(e.file !== undefined ? { file: e.file } : {}),
      message: redactText(e.message, REDACTED, secrets),
      cluster,
      side,
      introduced,
    });
    // The diff decides per producer: one that rendered at base (or is new) and fails now.
    const introduced = new Set(c.diff.summary.errorsIntroduced.map((e) => producerKey(e.producer)));
    for (const e of c.base.errors) errors.push(publishable(e, c.name, 'base', false));
    for (const e of c.head.errors) {
      errors.push(publishable(e, c.name, 'head', introduced.has(producerKey(e.producer))));
    }
  }
  return errors.sort(
    (a, b) =>
      compare(a.cluster, b.cluster) ||
      compare(a.side, b.side) ||
      compare(producerKey(a.producer), producerKey(b.producer)) ||
      compare(a.file ?? '', b.file ?? '') ||
      compare(a.message, b.message),
  );
}

function resourceKey(
  cluster: string,
  r: { kind: string; namespace?: string | undefined; name: string },
): string {
  return `${cluster}\0${r.kind}\0${r.namespace ?? ''}\0${r.name}`;
}

/** Cluster, then the most risky first (the highest finding on the object), then id. */
function sortChanges(changes: ResourceChange[], findings: readonly Finding[]): ResourceChange[] {
  const risk = new Map<string, number>();
  for (const f of findings) {
    const key = resourceKey(f.cluster, f.resource);
    risk.set(key, Math.max(risk.get(key) ?? 0, LEVEL_RANK[f.level]));
  }
  const rank = (c: ResourceChange): number => risk.get(resourceKey(c.cluster, c)) ?? 0;
  return [...changes].sort(
    (a, b) => compare(a.cluster, b.cluster) || rank(b) - rank(a) || compare(a.id, b.id),
  );
}

/** Code-unit order: the same on every machine, whatever its locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sum(
  summaries: readonly ClusterSummary[],
  key: 'added' | 'removed' | 'changed' | 'moved',
): number {
  return summaries.reduce((total, s) => total + s[key], 0);
}
