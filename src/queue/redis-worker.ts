import { DelayedError, type Job, Queue, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createCurrentCheck } from './current-check.js';
import { type CurrentJobWatch, watchCurrentJobs } from './current-job-watch.js';
import { type JobOutcome, runProcessor } from './job-outcome.js';
import { jobLogFields, jobSubject } from './pull-key.js';
import { queueDefaults } from './queue-defaults.js';
import type { LogSink } from '../logger.js';
import { silentLogger } from './queue-logger.js';
import {
  ABORT_WAIT_MS,
  type QueueWorker,
  type QueueWorkerOptions,
  logOutcome,
  within,
} from './queue-worker.js';
import { type RedisConnection, closeRedis, openRedis } from './redis-connection.js';
import { DEFAULT_QUEUE_NAME, type RedisKeys, redisKeys } from './redis-keys.js';
import { BullJobData } from './redis-queue.js';
import {
  type JobKeyPrefixes,
  type SettleStatus,
  settleScript,
  startScript,
} from './redis-scripts.js';
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
/** How long a running job holds its PR's next job back without a fresh poll of its worker. */
const ALIVE_MS = 10_000;
/**
 * How long a job whose PR has a running job waits before it looks again; the running job
 * starts it as soon as it ends, this only covers the moment between the two.
 */
const PARK_MS = 1_000;

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
  const intervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const watch = watchCurrentJobs(redis, { intervalMs, aliveMs: ALIVE_MS }, logger);
  // Only to start a parked job early; BullMQ's own connections do the consuming.
  const queue = new Queue(queueName, { connection: redis, prefix: options.prefix });
  const prefixes = { alive: keys.alivePrefix, job: keys.jobPrefix };
  const handle = { redis, keys, prefixes, queue, watch, logger, processor: options.processor };
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
    await queue.close();
    // A processor that ignores its signal keeps BullMQ's close waiting; dropping the
    // connection stops its lock renewal, so the stalled checker hands the job on.
    await closeRedis(redis);
  };
  return { close: () => (closing ??= close()) };
}

interface WorkerHandle {
  redis: Redis;
  keys: RedisKeys;
  prefixes: JobKeyPrefixes;
  queue: Queue;
  watch: CurrentJobWatch;
  logger: LogSink;
  processor: JobProcessor;
}

async function processJob(h: WorkerHandle, bullJob: Job, token?: string): Promise<void> {
  const jobId = bullJob.id;
  const parsed = BullJobData.safeParse(bullJob.data);
  if (jobId === undefined || !parsed.success) {
    throw new UnrecoverableError('job payload is not a review job');
  }
  const { job } = parsed.data;
  const subject = jobSubject(job);
  const jobKeys = {
    pullKey: h.keys.subject(subject.key),
    jobKey: h.keys.job(jobId),
    repoKey: h.keys.repository(subject.repository),
  };
  const attempt = bullJob.attemptsMade + 1;
  const fields = { jobId, ...jobLogFields(job), attempt };
  const start = await startScript(h.redis, jobKeys, h.prefixes, {
    jobId,
    attempt,
    aliveMs: ALIVE_MS,
  });
  if (start.kind === 'refused') {
    h.logger.info({ ...fields, reason: start.reason }, 'job cancelled before it started');
    return;
  }
  if (start.kind === 'busy') {
    // Its PR's running job starts it when it ends; the slot goes to another PR meanwhile.
    await bullJob.moveToDelayed(Date.now() + PARK_MS, token);
    throw new DelayedError();
  }
  h.logger.info(fields, 'job started');
  const controller = new AbortController();
  h.watch.track(
    jobId,
    { pullKey: jobKeys.pullKey, aliveKey: h.prefixes.alive + jobId },
    controller,
  );
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
  const ended = { jobId, headSha: subject.headSha };
  const { status: settled, parked } = await settleScript(
    h.redis,
    jobKeys,
    h.prefixes,
    ended,
    status,
    reason,
  );
  if (parked !== '') await promote(h, parked);
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

/** Starts a parked job now; if it is not parked in BullMQ yet, its own short wait ends soon. */
async function promote(h: WorkerHandle, jobId: string): Promise<void> {
  try {
    const parked = await h.queue.getJob(jobId);
    if (parked !== undefined && (await parked.isDelayed())) await parked.promote();
  } catch {
    // It was taken in between, or is being parked right now: its own short wait covers it.
  }
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
