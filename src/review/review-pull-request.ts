/**
 * One review of one PR, as the worker runs it: fetch the PR's refs into the mirror, run the
 * same analysis as the CLI, and publish it, unless a newer job made this one stale.
 */
import { analyze, parseAnalysisRequest, type AnalysisOutcome } from '../analysis/index.js';
import { ensureMirror, resolveRevision } from '../git/index.js';
import type { ForgeWriter } from '../forges/index.js';
import type { JobContext, ReviewJob } from '../queue/index.js';
import { type Acknowledgement, forgeOf } from '../model/index.js';
import { failingFindingIds, parseAnalysisResult } from '../report/index.js';
import { signReportUrl } from '../report-link.js';
import { forgeFor, type ForgeOfPull } from './forge-for.js';
import { reportSkipped } from './report-skipped.js';
import { settleFailure } from './settle-failure.js';
import { publishConclusion, publishResult, publishStarted } from './publish.js';
import type { ReviewDeps, ReviewStage, Run, Target } from './types.js';

/** Resolves when the review is published (or skipped); throws for the queue to retry or drop. */
export async function reviewPullRequest(
  job: ReviewJob,
  ctx: JobContext,
  deps: ReviewDeps,
): Promise<void> {
  // Every line of this review, analyze's included, names the job and the PR; the head's
  // SHA joins them once it is known.
  const jobLog = deps.logger.child({ jobId: ctx.jobId, ...job.pull, attempt: ctx.attempt });
  const now = deps.now ?? (() => performance.now());
  const started = now();
  let found: FoundHead;
  try {
    found = await findHead(job, deps);
  } catch (err) {
    return settleFailure(err, { ctx, deps, log: jobLog });
  }
  const { target } = found;
  const log = jobLog.child({ headSha: target.headSha });
  try {
    await review({ job, ctx, deps, log, target }, found, { now, started });
  } catch (err) {
    await settleFailure(err, { ctx, deps, log, target });
  }
}

interface FoundHead {
  head: PullHead;
  installationId: number | undefined;
  forge: ForgeOfPull;
  target: Target;
}

/** The PR's head and where the review publishes on it. */
async function findHead(job: ReviewJob, deps: ReviewDeps): Promise<FoundHead> {
  const forge = forgeFor(job.pull, deps);
  // An API call names only the repository: its installation is looked up.
  const installationId =
    job.installationId ??
    (forge.mode === 'app' ? await forge.client.installationFor(job.pull) : undefined);
  const writer = forge.client.forInstallation(installationId);
  const head = await pullHead(job, writer);
  const settings = { mode: forge.mode, comment: deps.settings.comment };
  const target: Target = { writer, pull: job.pull, headSha: head.headSha, settings };
  return { head, installationId, forge, target };
}

async function review(
  run: Run,
  { head, installationId, forge }: FoundHead,
  { now, started }: { now: () => number; started: number },
): Promise<void> {
  const { job, ctx, deps, log, target } = run;
  if (head.fromFork && !deps.settings.renderForks) {
    await reportSkipped(forge.client, target.settings, {
      pull: job.pull,
      headSha: head.headSha,
      reason: 'fork',
      installationId,
    });
    return;
  }
  if (job.acknowledge !== undefined && !(await mayAcknowledge(run, job.acknowledge.login))) return;
  // An acknowledgement rewrites the run it was given on rather than opening a new one.
  await publishStarted(target, ctx.attempt > 1 || job.acknowledge !== undefined);
  const outcome = await analyzeHead({ ...job, installationId }, run, { head, forge }, now);
  // A newer head or a closed PR took over while this one ran: it must not publish.
  if (ctx.signal.aborted || !(await ctx.isCurrent())) return;
  if (outcome === 'head-gone') {
    await publishConclusion(target, 'neutral', {
      title: 'Not reviewed: this commit is no longer the head of the pull request',
      summary: 'The pull request was force-pushed; its new head gets a review of its own.',
    });
    return;
  }
  const publishStart = now();
  const result = withReportLink(outcome.result, job, deps);
  const acknowledgement = await acknowledgementFor(run, outcome);
  if (acknowledgement !== undefined) result.acknowledgement = acknowledgement;
  await publishResult(target, result, outcome.failOn);
  await deps.results.put(job.pull, head.headSha, JSON.stringify(result));
  deps.metrics?.stage('publish', now() - publishStart, forgeOf(job.pull));
  deps.metrics?.stage('total', now() - started, forgeOf(job.pull));
  deps.metrics?.renderErrors(
    result.errors.filter((e) => e.side === 'head').length,
    forgeOf(job.pull),
  );
  log.info({ verdict: result.verdict.level }, 'review published');
}

/**
 * The event does not say whether the one who pressed the button may push: the forge is
 * asked, as a comment command's author association would have told. Refused, nothing changes.
 */
async function mayAcknowledge({ job, target, log }: Run, login: string): Promise<boolean> {
  const may =
    target.writer.mayWrite !== undefined &&
    (await target.writer.mayWrite({ owner: job.pull.owner, repo: job.pull.repo, login }));
  if (!may) log.info({ login }, 'acknowledgement refused, no write access');
  return may;
}

/**
 * The acknowledgement this head's result carries: the one just given (every finding that
 * fails the gate), the one this head already had, or, when the base's policy lets them
 * carry, the previous head's, while every failing finding is one it named.
 */
async function acknowledgementFor(
  { job, deps, target, log }: Run,
  outcome: AnalysisOutcome,
): Promise<Acknowledgement | undefined> {
  const failing = failingFindingIds(outcome.result, outcome.failOn);
  if (failing.length === 0) return undefined;
  if (job.acknowledge !== undefined) {
    log.info({ login: job.acknowledge.login, findings: failing }, 'findings acknowledged');
    return { by: job.acknowledge.login, at: job.acknowledge.at, findings: failing };
  }
  const stored = await deps.results.get(job.pull);
  if (stored === undefined) return undefined;
  let previous: Acknowledgement | undefined;
  try {
    previous = parseAnalysisResult(stored.resultJson).acknowledgement;
  } catch {
    return undefined;
  }
  if (previous === undefined) return undefined;
  if (stored.headSha === target.headSha) return previous;
  if (outcome.carryAcknowledgements !== true) return undefined;
  const named = new Set(previous.findings);
  if (!failing.every((id) => named.has(id))) return undefined;
  return { ...previous, carriedFrom: previous.carriedFrom ?? stored.headSha };
}

interface PullHead {
  headSha: string;
  baseRef: string;
  fromFork: boolean;
}

/** The head and base the event named, or (comment command, API) the PR's as it is now. */
async function pullHead(job: ReviewJob, writer: ForgeWriter): Promise<PullHead> {
  if (job.headSha !== undefined && job.baseRef !== undefined) {
    return { headSha: job.headSha, baseRef: job.baseRef, fromFork: false };
  }
  const pull = await writer.getPull({ ...job.pull });
  return { headSha: pull.headSha, baseRef: pull.baseRef, fromFork: pull.fromFork };
}

async function analyzeHead(
  job: Pick<ReviewJob, 'pull'> & { installationId: number | undefined },
  { ctx, deps, log }: Run,
  { head, forge }: { head: PullHead; forge: ForgeOfPull },
  now: () => number,
): Promise<AnalysisOutcome | 'head-gone'> {
  const { settings } = deps;
  const fetchStart = now();
  const token = await forge.client.installationToken(job.installationId);
  const mirror = await ensureMirror(deps.runner, {
    cacheDir: forge.mirrorCacheDir,
    gitUrl: forge.gitUrl,
    owner: job.pull.owner,
    repo: job.pull.repo,
    token,
    baseRef: head.baseRef,
    pullNumber: job.pull.pullNumber,
    signal: ctx.signal,
    timeoutMs: deps.machine.toolTimeoutMs,
  });
  deps.metrics?.stage('fetch', now() - fetchStart, forgeOf(job.pull));
  if (mirror.headSha !== head.headSha) {
    const known = await resolveRevision(deps.runner, mirror.repoDir, head.headSha).then(
      () => true,
      () => false,
    );
    if (!known) return 'head-gone';
  }
  const request = parseAnalysisRequest({
    repoDir: mirror.repoDir,
    base: mirror.baseSha,
    head: head.headSha,
    // Reports name the revisions as the PR does, not by the SHAs the mirror resolves.
    labels: { base: head.baseRef, head: `#${job.pull.pullNumber}` },
    render: { offline: settings.offline },
  });
  const outcome = await analyze(request, {
    runner: deps.runner,
    machine: deps.machine,
    signal: ctx.signal,
    logger: log,
  });
  const stages: Array<[ReviewStage, string]> = [
    ['render-base', 'render-base'],
    ['render-head', 'render-head'],
    ['diff', 'diff'],
  ];
  for (const [stage, timing] of stages) {
    const ms = outcome.result.timings[timing];
    if (ms !== undefined) deps.metrics?.stage(stage, ms, forgeOf(job.pull));
  }
  return outcome;
}

/** The result with a signed, expiring link to its HTML report, when a public URL is set. */
function withReportLink(
  result: AnalysisOutcome['result'],
  job: ReviewJob,
  deps: ReviewDeps,
): AnalysisOutcome['result'] {
  const link = deps.settings.reportLink;
  if (link === undefined) return result;
  const expires = new Date((deps.clock?.() ?? new Date()).getTime() + link.validForMs);
  return {
    ...result,
    reportUrl: signReportUrl(link.publicUrl, link.signingKey, job.pull, expires),
  };
}
