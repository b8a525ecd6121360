/**
 * One review of two revisions of a repository without a pull request (the MCP endpoint's
 * branch review): fetch the base branch and the head into the mirror, run the same analysis
 * as the CLI, and store the result under the job's id. It publishes nothing on GitHub.
 */
import { analyze, parseAnalysisRequest } from '../analysis/index.js';
import { ensureMirror } from '../git/index.js';
import type { JobContext, RangeJob } from '../queue/index.js';
import { gitHubOf } from './forge-for.js';
import { settleFailure } from './settle-failure.js';
import type { ReviewDeps } from './types.js';

/** Resolves when the result is stored; throws for the queue to retry or drop. */
export async function reviewRange(job: RangeJob, ctx: JobContext, deps: ReviewDeps): Promise<void> {
  const { range } = job;
  const log = deps.logger.child({ jobId: ctx.jobId, ...range, attempt: ctx.attempt });
  try {
    const github = gitHubOf(deps, 'a branch review');
    const installationId =
      job.installationId ??
      (deps.settings.mode === 'app' ? await github.installationFor(range) : undefined);
    const token = await github.installationToken(installationId);
    const mirror = await ensureMirror(deps.runner, {
      cacheDir: deps.settings.cacheDir,
      gitUrl: deps.settings.gitUrl,
      owner: range.owner,
      repo: range.repo,
      token,
      baseRef: range.base,
      headRef: range.head,
      signal: ctx.signal,
      timeoutMs: deps.machine.toolTimeoutMs,
    });
    const request = parseAnalysisRequest({
      repoDir: mirror.repoDir,
      base: mirror.baseSha,
      head: mirror.headSha,
      // Reports name the revisions as the caller did, not by the SHAs the mirror resolves.
      labels: { base: range.base, head: range.head },
      render: { offline: deps.settings.offline },
    });
    const outcome = await analyze(request, {
      runner: deps.runner,
      machine: deps.machine,
      signal: ctx.signal,
      logger: log,
    });
    await deps.results.putRange(ctx.jobId, mirror.headSha, JSON.stringify(outcome.result));
    log.info({ verdict: outcome.result.verdict.level }, 'range review stored');
  } catch (err) {
    await settleFailure(err, { ctx, deps, log });
  }
}
