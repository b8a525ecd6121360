/**
 * One entry of a repository at one revision rendered for the MCP endpoint's render_entry:
 * fetch the revision into the mirror, render the entry as `fluxlens render` does, and store
 * the redacted YAML under the job's id. It publishes nothing on GitHub.
 */
import { renderEntry } from '../analysis/index.js';
import { ensureMirror } from '../git/index.js';
import type { JobContext, RenderJob } from '../queue/index.js';
import { gitHubOf } from './forge-for.js';
import { settleFailure } from './settle-failure.js';
import type { ReviewDeps } from './types.js';

/** Resolves when the render is stored; throws for the queue to retry or drop. */
export async function renderEntryJob(
  job: RenderJob,
  ctx: JobContext,
  deps: ReviewDeps,
): Promise<void> {
  const { render } = job;
  const log = deps.logger.child({ jobId: ctx.jobId, ...render, attempt: ctx.attempt });
  try {
    const github = gitHubOf(deps, 'a render');
    const installationId =
      job.installationId ??
      (deps.settings.mode === 'app' ? await github.installationFor(render) : undefined);
    const token = await github.installationToken(installationId);
    const mirror = await ensureMirror(deps.runner.withSignal(ctx.signal), {
      cacheDir: deps.settings.cacheDir,
      gitUrl: deps.settings.gitUrl,
      owner: render.owner,
      repo: render.repo,
      token,
      headRef: render.rev,
      signal: ctx.signal,
      timeoutMs: deps.machine.toolTimeoutMs,
    });
    const rendered = await renderEntry(
      {
        repoDir: mirror.repoDir,
        sha: mirror.headSha,
        path: render.path,
        offline: deps.settings.offline,
      },
      { runner: deps.runner.withSignal(ctx.signal), machine: deps.machine },
    );
    const output = { rev: render.rev, sha: mirror.headSha, path: render.path, ...rendered };
    await deps.results.putRange(ctx.jobId, mirror.headSha, JSON.stringify(output));
    log.info({ errors: rendered.errors.length }, 'entry render stored');
  } catch (err) {
    await settleFailure(err, { ctx, deps, log });
  }
}
