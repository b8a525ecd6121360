/**
 * Helpers for the queue tests: review jobs, a processor whose runs the test finishes by
 * hand, and polling for a state (liveness bounds only, never speed assertions).
 */
import { afterEach } from 'vitest';
import {
  type DeliveryLedger,
  type JobContext,
  type JobProcessor,
  type JobQueue,
  type JobStatus,
  type QueueWorker,
  type ResultStore,
  ReviewJob,
} from '../../../src/queue/index.js';

export function sha(char: string): string {
  return char.repeat(40);
}

export function reviewJob(overrides: Partial<ReviewJob> = {}): ReviewJob {
  return {
    pull: { owner: 'acme', repo: 'fleet-infra', pullNumber: 42 },
    headSha: sha('a'),
    baseRef: 'main',
    reason: 'synchronize',
    explicit: false,
    deliveryId: 'delivery-1',
    requestedAt: '2024-05-01T12:00:00.000Z',
    ...overrides,
  };
}

/**
 * What a `/fluxlens render` comment (or an API call, with reason 'api') asks for: the PR
 * only, no head or base; the worker looks both up when the job runs.
 */
export function pullOnlyJob(overrides: Partial<ReviewJob> = {}): ReviewJob {
  return {
    pull: { owner: 'acme', repo: 'fleet-infra', pullNumber: 42 },
    reason: 'comment-command',
    explicit: true,
    deliveryId: 'delivery-2',
    requestedAt: '2024-05-01T12:05:00.000Z',
    ...overrides,
  };
}

export interface Run {
  job: ReviewJob;
  ctx: JobContext;
  /** Ends the run: resolves, or rejects with `error`. */
  finish(error?: Error): void;
}

/** Each run blocks until the test finishes it or the queue aborts its signal. */
export function gatedProcessor(): { runs: Run[]; processor: JobProcessor } {
  const runs: Run[] = [];
  const processor: JobProcessor = (queued, ctx) =>
    new Promise<void>((resolve, reject) => {
      const job = ReviewJob.parse(queued);
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), {
        once: true,
      });
      runs.push({ job, ctx, finish: (error) => (error ? reject(error) : resolve()) });
    });
  return { runs, processor };
}

/** Runs `steps` in turn per call (the last one repeats): undefined succeeds, an Error throws. */
export function scriptedProcessor(steps: Array<Error | undefined>): {
  calls: Array<{ job: ReviewJob; attempt: number }>;
  processor: JobProcessor;
} {
  const calls: Array<{ job: ReviewJob; attempt: number }> = [];
  const processor: JobProcessor = (job, ctx) => {
    calls.push({ job: ReviewJob.parse(job), attempt: ctx.attempt });
    const step = steps[Math.min(calls.length, steps.length) - 1];
    return step ? Promise.reject(step) : Promise.resolve();
  };
  return { calls, processor };
}

export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Gives a worker the time to pick up a job it should not start: longer than the Redis
 * adapter's recheck of a job held back behind its PR's running job.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1_500));
}

export async function waitForStatus(queue: JobQueue, jobId: string, status: JobStatus) {
  return waitFor(async () => {
    const state = await queue.state(jobId);
    return state?.status === status ? state : undefined;
  }, `job ${jobId} to be ${status}`);
}

export type QueueUnderTest = JobQueue & DeliveryLedger & { results: ResultStore };

export interface QueueHarness {
  queue: QueueUnderTest;
  /** Another queue client on the same backing store (a second server). */
  secondQueue(): Promise<QueueUnderTest>;
  startWorker(
    processor: JobProcessor,
    options?: { concurrency?: number; graceMs?: number },
  ): Promise<QueueWorker>;
  /** Closes every worker and queue it made and removes what it stored. */
  dispose(): Promise<void>;
}

/** One adapter under the shared semantics table. */
export interface QueueAdapter {
  name: string;
  create(options: { attempts: number; backoffMs: number }): Promise<QueueHarness>;
}

/** Opens harnesses of `adapter` for a describe block; each is disposed after its test. */
export function useHarness(
  adapter: QueueAdapter,
): (options?: { attempts: number; backoffMs: number }) => Promise<QueueHarness> {
  let harness: QueueHarness | undefined;
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });
  return async (options = { attempts: 3, backoffMs: 50 }) =>
    (harness = await adapter.create(options));
}
