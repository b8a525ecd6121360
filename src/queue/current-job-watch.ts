import type { Redis } from 'ioredis';
import { JobInterruptedError } from './job-outcome.js';
import type { LogSink } from '../logger.js';

export interface CurrentJobWatch {
  /** `aliveKey` is refreshed on every poll: while it lives, the PR's next job waits. */
  track(
    jobId: string,
    keys: { pullKey: string; aliveKey: string },
    controller: AbortController,
  ): void;
  untrack(jobId: string): void;
  /** Aborts every tracked job for shutdown: they go back to the queue. */
  interruptAll(): void;
  stop(): void;
}

/**
 * Polls each running job's PR hash and aborts the job once it is no longer the PR's
 * current job. Polling rather than pub/sub: a missed message would leave a superseded job
 * running to the end, a missed poll only delays the abort by one interval. The same poll
 * keeps each job's `alive` key fresh for `aliveMs`, so a job whose worker died stops
 * holding its PR's next job back soon after.
 */
export function watchCurrentJobs(
  redis: Redis,
  timing: { intervalMs: number; aliveMs: number },
  logger: LogSink,
): CurrentJobWatch {
  const tracked = new Map<
    string,
    { pullKey: string; aliveKey: string; controller: AbortController }
  >();
  let checking = false;

  const check = async (): Promise<void> => {
    if (checking || tracked.size === 0) return;
    checking = true;
    try {
      const jobs = [...tracked];
      const batch = redis.pipeline();
      for (const [, job] of jobs) {
        batch.hget(job.pullKey, 'current');
        batch.set(job.aliveKey, '1', 'PX', timing.aliveMs);
      }
      const replies = (await batch.exec()) ?? [];
      jobs.forEach(([jobId, job], index) => {
        const [err, current] = replies[index * 2] ?? [null, undefined];
        if (err || current === jobId || job.controller.signal.aborted) return;
        job.controller.abort(
          typeof current === 'string'
            ? new JobInterruptedError('superseded', `superseded by job ${current}`)
            : new JobInterruptedError('pull-closed', 'pull request closed'),
        );
      });
    } catch (err) {
      // Redis away: keep running the jobs; their locks decide their fate.
      logger.warn({ err }, 'could not check whether running jobs are current');
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), timing.intervalMs);

  return {
    track: (jobId, keys, controller) => tracked.set(jobId, { ...keys, controller }),
    untrack: (jobId) => tracked.delete(jobId),
    interruptAll() {
      const reason = new JobInterruptedError('shutdown', 'worker shutting down');
      for (const job of tracked.values()) job.controller.abort(reason);
    },
    stop: () => clearInterval(timer),
  };
}
