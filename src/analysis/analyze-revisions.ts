/**
 * An analysis of two resolved revisions: reads the policy from the base, renders every
 * cluster at both revisions, diffs and judges them, and keeps the result when it may be
 * given back to the same question (kept-analysis.ts).
 */
import { diffClusters } from '../diff/index.js';
import { CancelledError, FluxlensError, UsageError } from '../errors.js';
import {
  changedPaths,
  readFileAtRevision,
  treeEntry,
  type ResolvedRevisions,
} from '../git/index.js';
import type { FailOn, ImageAnswers, ImageQuery, RenderedCluster } from '../model/index.js';
import {
  clusterEntries,
  clustersAddedAtHead,
  parsePolicy,
  POLICY_FILE,
  type ClusterEntry,
} from '../policy/index.js';
import {
  checkImages,
  createEngine,
  keepLastApplied,
  RenderMemo,
  renderSettings,
  type RenderEngine,
  type RenderSettings,
} from '../render/index.js';
import { redactAnalysisResult, secretValuesOf } from '../redact/index.js';
import { evaluateRisk, imageQueries, RULE_IDS } from '../risk/index.js';
import type { ToolRunner } from '../tool-runner.js';
import { accountFiles } from './account-files.js';
import { assembleResult, type RenderedPair } from './assemble-result.js';
import { keepAnalysis, type KeptAnalysisPlace } from './kept-analysis.js';
import type { AnalysisDeps, AnalysisOutcome, AnalysisRequest } from './request.js';
import type { Stopwatch } from './stopwatch.js';

type Side = 'base' | 'head';

/** One side of one cluster as rendered, or why there is none (see renderCluster). */
type RenderedSide = RenderedCluster | 'missing' | 'empty';

/** What one analysis works with: the request, its signalled runner, engine and settings. */
interface Run {
  request: AnalysisRequest;
  deps: AnalysisDeps;
  runner: ToolRunner;
  settings: RenderSettings;
  engine: RenderEngine;
  clock: Stopwatch;
}

const MAX_POLICY_BYTES = 256 * 1024;
const EMPTY_CLUSTER: RenderedCluster = { producers: [], objects: [], errors: [], tools: {} };

/** Where analyze is when nothing was kept: its revisions resolved, its clock running. */
export interface AnalysisStart {
  request: AnalysisRequest;
  deps: AnalysisDeps;
  runner: ToolRunner;
  clock: Stopwatch;
  revisions: ResolvedRevisions;
  /** Where the result is kept for the same question; absent: it may not be. */
  place: KeptAnalysisPlace | undefined;
}

export async function analyzeRevisions(start: AnalysisStart): Promise<AnalysisOutcome> {
  const { request, deps, runner, clock, revisions } = start;
  const git = { timeoutMs: deps.machine.toolTimeoutMs };
  const readPolicy = (sha: string) =>
    readFileAtRevision(runner, request.repoDir, sha, POLICY_FILE, {
      ...git,
      maxBytes: MAX_POLICY_BYTES,
    });
  const policy = await clock.time('policy', async () =>
    parsePolicy((await readPolicy(revisions.base.sha)) ?? '', RULE_IDS),
  );
  const added = await clock.time('policy', () =>
    clustersAddedAtHead(policy, () => readPolicy(revisions.head.sha), RULE_IDS),
  );
  // The request may ask for it; else the base's policy says how to render in-cluster sources.
  const inClusterSources = request.render.inClusterSources ?? policy.inClusterSources;
  const settings = renderSettings(deps.machine, {
    ...request.render,
    ...(inClusterSources !== undefined ? { inClusterSources } : {}),
  });
  const run: Run = {
    request,
    deps,
    runner,
    settings,
    engine: (deps.createEngine ?? createEngine)(request.engine, {
      runner,
      settings,
      warn: (message, fields) => deps.logger?.warn(fields, message),
    }),
    clock,
  };

  const carry = policy.acknowledgements === 'carry' ? { carryAcknowledgements: true as const } : {};
  if (revisions.base.sha === revisions.head.sha) {
    return { ...sameCommit(run, revisions, policy.failOn), ...carry };
  }

  const rendered: RenderedPair[] = [];
  const sides: Array<RenderedSide> = [];
  const memos: RenderMemo[] = [];
  for (const entry of clusterEntries([...policy.clusters, ...added], request.paths)) {
    // Changed-only: the head renders only what its key says changed. --no-cache turns it
    // off with the cache, so that a render without either is the full two-sided one.
    const memo = settings.cache !== undefined ? new RenderMemo() : undefined;
    if (memo) memos.push(memo);
    const pair = await renderPair(run, entry, revisions, memo);
    rendered.push(pair.rendered);
    sides.push(...pair.sides);
  }
  const clusters = clock.timeSync('diff', () =>
    rendered.map((r) => ({
      ...r,
      diff: diffClusters(r.base, r.head, { cluster: r.name, normalize: policy.normalize }),
    })),
  );
  const images = policy.checkImages
    ? await clock.time('images', () => askRegistries(run, imageQueries(clusters, policy)))
    : undefined;
  // The registries are not told of a cancel; their answers are then not used.
  throwIfCancelled(deps.signal);
  const findings = clock.timeSync('risk', () =>
    evaluateRisk({ clusters, policy, ...(images ? { images } : {}) }),
  );
  const changed = await clock.time('git', () =>
    changedPaths(runner, request.repoDir, revisions.base.sha, revisions.head.sha, git),
  );
  const files = accountFiles(
    changed,
    rendered.flatMap((r) => [r.base, r.head]),
  );
  const secrets = secretValuesOf(...rendered.flatMap((r) => [r.base, r.head]));
  const result = redactAnalysisResult(
    assembleResult(revisions, clusters, findings, request.labels, files),
    secrets,
  );
  // A registry's answer other than "present" may change without a commit (an image pushed,
  // a registry back up): such an analysis is worked out again when asked again.
  const settled = [...(images?.values() ?? [])].every((a) => a.state === 'present');
  const place = settled ? start.place : undefined;
  if (place) {
    const analysis = { result, failOn: policy.failOn, ...carry };
    await clock.time('analysis-store', () => keepAnalysis(place, analysis, sides));
  }
  result.timings = {
    ...clock.finish(),
    ...cacheCounts(rendered),
    ...producerCounts(memos),
    ...(start.place ? { 'analysis-kept': 0 } : {}),
  };
  deps.logger?.debug({ timings: result.timings }, 'analysis finished');
  return { result, failOn: policy.failOn, ...carry, revisions };
}

/**
 * The image check's one network step, apart from charts: only here, and only when the
 * base's policy asks, with the chart fetch's network settings and cache.
 */
function askRegistries(run: Run, queries: readonly ImageQuery[]): Promise<ImageAnswers> {
  const { helm, toolTimeoutMs } = run.settings;
  return checkImages(queries, {
    network: helm.network,
    chartCacheDir: helm.chartCacheDir,
    offline: helm.offline,
    timeoutMs: toolTimeoutMs,
  });
}

/**
 * Base and head are one commit (a branch not yet ahead of its base): nothing can differ,
 * so nothing is rendered, and the headline says why rather than "no changes found".
 */
function sameCommit(run: Run, revisions: ResolvedRevisions, failOn: FailOn): AnalysisOutcome {
  const result = assembleResult(revisions, [], [], run.request.labels);
  const sha = revisions.head.sha.slice(0, 12);
  result.verdict.headline = `Nothing to compare: the head is its base (${sha})`;
  result.timings = run.clock.finish();
  return { result, failOn, revisions };
}

/**
 * How many builds the render cache answered, and how many ran, on both sides; how many the
 * head keyed from what they read at base (carried-builds.ts); and how many renders the
 * cache gave back whole (a commit rendered before).
 */
function cacheCounts(rendered: readonly RenderedPair[]): Record<string, number> {
  const sides = rendered.flatMap((r) => [r.base.cache, r.head.cache]);
  if (sides.every((c) => c === undefined)) return {};
  const sum = (key: 'hits' | 'misses') => sides.reduce((n, c) => n + (c?.[key] ?? 0), 0);
  const kept = sides.filter((c) => c?.whole === true).length;
  const carried = sides.reduce((n, c) => n + (c?.carried ?? 0), 0);
  return {
    'builds-cached': sum('hits'),
    'builds-run': sum('misses'),
    'builds-carried': carried,
    'renders-kept': kept,
  };
}

/**
 * Producers of both sides by how they got their objects: rendered (their build run or read
 * from the cache, then post-built), read whole from the render cache, or taken at head from
 * the base's render because nothing they read changed.
 */
function producerCounts(memos: readonly RenderMemo[]): Record<string, number> {
  const sum = (how: 'rendered' | 'cached' | 'unchanged') =>
    memos.reduce((n, m) => n + m.counts[how], 0);
  const counts = {
    'producers-rendered': sum('rendered'),
    'producers-cached': sum('cached'),
    'producers-unchanged': sum('unchanged'),
  };
  return Object.values(counts).some((n) => n > 0) ? counts : {};
}

/** Both sides of one cluster; a side where the cluster does not exist renders as empty. */
async function renderPair(
  run: Run,
  entry: ClusterEntry,
  revisions: ResolvedRevisions,
  memo: RenderMemo | undefined,
): Promise<{ rendered: RenderedPair; sides: [RenderedSide, RenderedSide] }> {
  const side = (name: Side, sha: string) =>
    run.clock.time(`render-${name}`, () => renderCluster(run, entry, name, sha, memo));
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
  const rendered = { ...entry, base: baseCluster, head: keepLastApplied(baseCluster, headCluster) };
  return { rendered, sides: [base, head] };
}

/**
 * One side of one cluster; 'missing' (no such folder) or 'empty' (no Flux objects in it)
 * when the cluster does not exist at that revision (added or removed by the PR), so the
 * other side diffs against nothing.
 */
async function renderCluster(
  run: Run,
  entry: ClusterEntry,
  side: Side,
  sha: string,
  memo: RenderMemo | undefined,
): Promise<RenderedSide> {
  const { request, deps } = run;
  const found = await treeEntry(run.runner, request.repoDir, sha, entry.path, {
    timeoutMs: run.settings.toolTimeoutMs,
  });
  if (found?.type !== 'tree') return 'missing';
  try {
    const cluster = await run.engine.render(
      {
        repoDir: request.repoDir,
        rev: sha,
        entry: entry.path,
        sources: request.sources,
        ...(request.repoUrl !== undefined ? { repoUrl: request.repoUrl } : {}),
        ...(memo ? { memo } : {}),
      },
      deps.onProgress &&
        ((p) => deps.onProgress?.({ stage: 'render', ...p, cluster: entry.name, side })),
    );
    // A cancelled build is recorded as that producer's error; the result must not be used.
    throwIfCancelled(deps.signal);
    return cluster;
  } catch (err) {
    throwIfCancelled(deps.signal);
    if (err instanceof FluxlensError && err.code === 'no-flux-objects') return 'empty';
    throw err;
  }
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError('analysis cancelled', { cause: signal.reason });
}
