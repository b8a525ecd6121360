import { type Job, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createCurrentCheck } from './current-check.js';
import { type CurrentJobWatch, watchCurrentJobs } from './current-job-watch.js';
import { type JobOutcome, runProcessor } from './job-outcome.js';
import { queueDefaults } from './queue-defaults.js';
import { type QueueLogger, silentLogger } from './queue-logger.js';
import {
  ABORT_WAIT_MS,
  type QueueWorker,
  type QueueWorkerOptions,
  logOutcome,
  within,
} from './queue-worker.js';
import { type RedisConnection, closeRedis, openRedis } from './redis-connection.js';
import { DEFAULT_QUEUE_NAME, type RedisKeys, redisKeys } from './redis-keys.js';
import { BullJobDataSchema } from './redis-queue.js';
import { type SettleStatus, settleScript, startScript } from './redis-scripts.js';
import type { JobProcessor } from './types.js';

export interface RedisWorkerOptions extends QueueWorkerOptions {
  connection: RedisConnection;
  prefix: string;
  queueName?: string;
  /** How long a job's lock lives unrenewed: a dead worker's job is free again after it. */
  lockDurationMs?: number;
  /**
   * How often this worker looks for jobs whose lock expired (their worker died). Give every
   * worker of a queue the same value: the first to check holds the others off for its own.
   */
  stalledIntervalMs?: number;
  /** How often running jobs check whether they are still their PR's current job. */
  pollIntervalMs?: number;
}

const DEFAULT_POLL_INTERVAL_MS = 300;

/**
 * Consumes the Redis queue. Each job first claims its PR (a job that is no longer current
 * ends as cancelled without running), runs with a signal that aborts when it is
 * superseded, and its outcome decides BullMQ's move: complete, retry with backoff, fail
 * for good (UnrecoverableError) or, on shutdown, back to wait without using an attempt.
 */
export async function startRedisWorker(options: RedisWorkerOptions): Promise<QueueWorker> {
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const logger = options.logger ?? silentLogger;
  // BullMQ requires this for the connections a worker blocks on.
  const redis = openRedis(options.connection, { maxRetriesPerRequest: null });
  const keys = redisKeys(options.prefix, queueName);
  const watch = watchCurrentJobs(redis, options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, logger);
  const handle = { redis, keys, watch, logger, processor: options.processor };
  const worker = new Worker(queueName, (job, token) => processJob(handle, job, token), {
    connection: redis,
    prefix: options.prefix,
    concurrency: options.concurrency,
    ...(options.lockDurationMs === undefined ? {} : { lockDuration: options.lockDurationMs }),
    ...(options.stalledIntervalMs === undefined
      ? {}
      : { stalledInterval: options.stalledIntervalMs }),
  });
  redis.on('error', (err: unknown) => logger.warn({ err }, 'worker lost its Redis connection'));
  worker.on('error', (err) => logger.error({ err }, 'queue worker error'));
  worker.on('stalled', (jobId) => logger.warn({ jobId }, 'job stalled, returned to the queue'));
  await worker.waitUntilReady();

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    const closed = worker.close();
    await within(closed, options.graceMs ?? queueDefaults.graceMs);
    watch.interruptAll();
    await within(closed, ABORT_WAIT_MS);
    watch.stop();
    // A processor that ignores its signal keeps BullMQ's close waiting; dropping the
    // connection stops its lock renewal, so the stalled checker hands the job on.
    await closeRedis(redis);
  };
  return { close: () => (closing ??= close()) };
}

interface WorkerHandle {
  redis: Redis;
  keys: RedisKeys;
  watch: CurrentJobWatch;
  logger: QueueLogger;
  processor: JobProcessor;
}

async function processJob(h: WorkerHandle, bullJob: Job, token?: string): Promise<void> {
  const jobId = bullJob.id;
  const parsed = BullJobDataSchema.safeParse(bullJob.data);
  if (jobId === undefined || !parsed.success) {
    throw new UnrecoverableError('job payload is not a review job');
  }
  const { job } = parsed.data;
  const jobKeys = { pullKey: h.keys.pull(job.pull), jobKey: h.keys.job(jobId) };
  const attempt = bullJob.attemptsMade + 1;
  const fields = { jobId, ...job.pull, headSha: job.headSha, deliveryId: job.deliveryId, attempt };
  const refused = await startScript(h.redis, jobKeys, jobId, attempt);
  if (refused) {
    h.logger.info({ ...fields, reason: refused }, 'job cancelled before it started');
    return;
  }
  h.logger.info(fields, 'job started');
  const controller = new AbortController();
  h.watch.track(jobId, jobKeys.pullKey, controller);
  let outcome: JobOutcome;
  try {
    const isCurrent = createCurrentCheck(h.redis, jobKeys.pullKey, jobId, controller.signal);
    outcome = await runProcessor(h.processor, job, {
      jobId,
      attempt,
      signal: controller.signal,
      isCurrent,
    });
  } finally {
    h.watch.untrack(jobId);
  }
  const lastAttempt = attempt >= (bullJob.opts.attempts ?? 1);
  const status = statusOf(outcome, lastAttempt);
  const reason = 'reason' in outcome ? outcome.reason : '';
  const settled = await settleScript(
    h.redis,
    jobKeys,
    { jobId, headSha: job.headSha },
    status,
    reason,
  );
  const superseded = settled === 'cancelled' && outcome.kind !== 'cancelled';
  logOutcome(h.logger, fields, superseded ? { kind: 'cancelled', reason: 'superseded' } : outcome);
  if (settled === 'completed' || settled === 'cancelled') return;
  if (outcome.kind === 'interrupted') {
    // Back to the front of wait without using an attempt; if the lock is already gone,
    // the stalled checker does the same.
    await bullJob.moveToWait(token).catch((err: unknown) => {
      h.logger.warn({ ...fields, err }, 'could not return the job to the queue');
    });
    throw new WaitingError();
  }
  if (outcome.kind === 'permanent') throw new UnrecoverableError(reason);
  // Transient: BullMQ retries it with backoff, or fails it when this was the last attempt.
  throw new Error(reason);
}

function statusOf(outcome: JobOutcome, lastAttempt: boolean): SettleStatus {
  switch (outcome.kind) {
    case 'completed':
      return 'completed';
    case 'cancelled':
      return 'cancelled';
    case 'interrupted':
      return 'waiting';
    case 'permanent':
      return 'failed';
    case 'transient':
      return lastAttempt ? 'failed' : 'waiting';
  }
}
