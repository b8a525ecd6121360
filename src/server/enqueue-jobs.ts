/**
 * The one way review requests reach the queue, for webhooks and the API alike: each call
 * is counted against its rate limits first, then each job is enqueued, where a request
 * with nothing newer than the PR's waiting job is coalesced into it at no further cost.
 */
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { EnqueueOutcome, QueuedJob } from '../queue/index.js';
import { TooManyRequests } from './http-error.js';
import { type ServerContext, guarded } from './server-context.js';

/** Every limit counts calls per minute. */
const LIMIT_WINDOW_SECONDS = 60;

export async function enqueueJobs(
  ctx: ServerContext,
  log: FastifyBaseLogger,
  jobs: readonly QueuedJob[],
): Promise<EnqueueOutcome[]> {
  const outcomes: EnqueueOutcome[] = [];
  for (const job of jobs) {
    const outcome = await guarded(() => ctx.deps.queue.enqueue(job));
    ctx.metrics.request(outcome.status);
    const subject = 'render' in job ? job.render : 'range' in job ? job.range : job.pull;
    log.info({ ...subject, reason: job.reason, ...outcome }, 'review job enqueued');
    outcomes.push(outcome);
  }
  return outcomes;
}

/** Whether the queue made a job (as opposed to finding the request already covered). */
export function madeJob(outcome: EnqueueOutcome): boolean {
  return outcome.status === 'queued' || outcome.status === 'replaced';
}

/**
 * Counts one call against each bucket with a limit (per minute; undefined is no limit) and
 * throws TooManyRequests, with the longest wait, when any is over.
 */
export async function admit(
  ctx: ServerContext,
  buckets: ReadonlyArray<readonly [bucket: string, perMinute: number | undefined]>,
): Promise<void> {
  let retryAfterSeconds = 0;
  for (const [bucket, perMinute] of buckets) {
    if (perMinute === undefined) continue;
    const limit = { count: perMinute, windowSeconds: LIMIT_WINDOW_SECONDS };
    const answer = await guarded(() => ctx.deps.queue.admit(bucket, limit));
    if (!answer.admitted) retryAfterSeconds = Math.max(retryAfterSeconds, answer.retryAfterSeconds);
  }
  if (retryAfterSeconds > 0) throw new TooManyRequests(retryAfterSeconds);
}

/** A bucket name for a token that does not carry the token. */
export function tokenBucket(token: string): string {
  return `api-token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}
