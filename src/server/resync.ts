/**
 * The periodic resync: every open PR of the repositories fluxlens serves whose head has no
 * result is enqueued, so webhooks lost while fluxlens was down (or Redis was) are recovered.
 * The queue's head-SHA rule keeps it from queueing anything twice.
 */
import type { GitHubClient, PullInfo } from '../github/index.js';
import type { Logger } from '../logger.js';
import type { JobQueue, ResultStore } from '../queue/index.js';

export interface ResyncDeps {
  github: Pick<GitHubClient, 'forInstallation' | 'listInstallations'>;
  queue: Pick<JobQueue, 'enqueue'>;
  results: ResultStore;
  logger: Logger;
  renderDrafts: boolean;
  renderForks: boolean;
  /** `owner/repo`, lowercase; token mode can only resync the repositories listed here. */
  repositories?: readonly string[];
  clock?: () => Date;
}

export interface ResyncSummary {
  pulls: number;
  enqueued: number;
}

/** One pass over every installation's open PRs. */
export async function resyncOpenPulls(deps: ResyncDeps): Promise<ResyncSummary> {
  const summary: ResyncSummary = { pulls: 0, enqueued: 0 };
  const installations = await deps.github.listInstallations();
  const sources: Array<number | undefined> = installations.length > 0 ? installations : [undefined];
  for (const installationId of sources) {
    const writer = deps.github.forInstallation(installationId);
    const repos =
      installationId === undefined
        ? (deps.repositories ?? []).map((name) => {
            const [owner = '', repo = ''] = name.split('/');
            return { owner, repo };
          })
        : (await writer.listInstallationRepos()).filter((r) => !r.archived);
    for (const { owner, repo } of repos) {
      if (deps.repositories && !deps.repositories.includes(`${owner}/${repo}`.toLowerCase())) {
        continue;
      }
      for (const pull of await writer.listOpenPulls({ owner, repo })) {
        summary.pulls += 1;
        if (await enqueueIfUnreviewed(deps, { owner, repo }, pull, installationId)) {
          summary.enqueued += 1;
        }
      }
    }
  }
  return summary;
}

async function enqueueIfUnreviewed(
  deps: ResyncDeps,
  repo: { owner: string; repo: string },
  pull: PullInfo,
  installationId: number | undefined,
): Promise<boolean> {
  if (pull.draft && !deps.renderDrafts) return false;
  if (pull.fromFork && !deps.renderForks) return false;
  const ref = { ...repo, pullNumber: pull.number };
  if (await deps.results.has(ref, pull.headSha)) return false;
  const outcome = await deps.queue.enqueue({
    pull: ref,
    ...(installationId !== undefined ? { installationId } : {}),
    headSha: pull.headSha,
    baseRef: pull.baseRef,
    reason: 'resync',
    explicit: false,
    requestedAt: (deps.clock?.() ?? new Date()).toISOString(),
  });
  return outcome.status !== 'duplicate';
}

/** Runs a resync now and then every `intervalMs`; stop() ends it. Failures are logged only. */
export function startResync(deps: ResyncDeps, intervalMs: number): { stop(): void } {
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    resyncOpenPulls(deps)
      .then((s) => deps.logger.info(s, 'resync finished'))
      .catch((err: unknown) => deps.logger.warn({ err }, 'resync failed'))
      .finally(() => {
        running = false;
      });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
