import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { jobFields, jobSubject } from './pull-key.js';
import { queueDefaults } from './queue-defaults.js';
import type { LogSink } from '../logger.js';
import { silentLogger } from './queue-logger.js';
import { type RedisConnection, closeRedis, endUnready, openRedis } from './redis-connection.js';
import { DEFAULT_QUEUE_NAME, type RedisKeys, redisKeys } from './redis-keys.js';
import { createRedisResultStore } from './redis-result-store.js';
import { type JobKeys, cancelScript, enqueueScript, settleScript } from './redis-scripts.js';
import {
  type Admission,
  type DeliveryLedger,
  type JobQueue,
  type JobState,
  PullRef,
  RangeRef,
  type RateLimit,
  RenderRef,
  type ResultStore,
  QueuedJob,
} from './types.js';

export interface RedisQueueOptions {
  connection: RedisConnection;
  /** Namespace of every key; one per deployment (and per test). */
  prefix: string;
  queueName?: string;
  attempts?: number;
  backoffMs?: number;
  deliveryTtlSeconds?: number;
  jobStateTtlSeconds?: number;
  /** Seconds a result is kept after its last write; undefined keeps results forever. */
  resultTtlSeconds?: number;
  logger?: LogSink;
}

export interface RedisQueue extends JobQueue, DeliveryLedger {
  readonly results: ResultStore;
}

/** What a BullMQ job carries; parsed again by the worker. */
export const BullJobData = z.object({ job: QueuedJob });
export const BULL_JOB_NAME = 'review';

/** PR coalescing state outlives any job; a month after the last event it may go. */
const PULL_STATE_TTL_SECONDS = 30 * 24 * 60 * 60;
/** A job whose end was never recorded (a lost worker) stops counting after this. */
const REPOSITORY_LOAD_WINDOW_MS = 6 * 60 * 60 * 1000;
/** BullMQ's lowest priority. */
const MAX_PRIORITY = 2_097_152;
const PING_TIMEOUT_MS = 1_000;

/** The server's side of the Redis adapter: enqueue, cancel, job states, ledger, results. */
export function createRedisQueue(options: RedisQueueOptions): RedisQueue {
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const redis = openRedis(options.connection);
  const keys = redisKeys(options.prefix, queueName);
  const queue = new Queue(queueName, {
    connection: redis,
    prefix: options.prefix,
    defaultJobOptions: {
      attempts: options.attempts ?? queueDefaults.attempts,
      backoff: { type: 'exponential', delay: options.backoffMs ?? queueDefaults.backoffMs },
      // Our job hash keeps the state the API reports; BullMQ keeps failures to inspect.
      removeOnComplete: true,
      removeOnFail: { age: queueDefaults.jobStateTtlSeconds, count: 1000 },
    },
  });
  // ioredis reconnects by itself; without listeners its errors would crash the process.
  const logger = options.logger ?? silentLogger;
  redis.on('error', (err: unknown) => logger.warn({ err }, 'queue lost its Redis connection'));
  queue.on('error', (err) => logger.error({ err }, 'queue error'));
  const jobTtlSeconds = options.jobStateTtlSeconds ?? queueDefaults.jobStateTtlSeconds;
  const deliveryTtl = options.deliveryTtlSeconds ?? queueDefaults.deliveryTtlSeconds;

  const removeWaiting = async (jobId: string, reason: string): Promise<boolean> => {
    const job = await queue.getJob(jobId);
    if (!job || !['waiting', 'prioritized', 'delayed'].includes(await job.getState())) return false;
    try {
      await job.remove();
    } catch {
      // It started in between; its worker finds it is no longer current and cancels it.
      return false;
    }
    await redis.hset(keys.job(jobId), { status: 'cancelled', reason });
    return true;
  };
  const limit = async (bucket: string, rule: RateLimit): Promise<Admission> => {
    const reply = await redis.eval(ADMIT, 1, keys.limit(bucket), rule.count, rule.windowSeconds);
    const waitMs = z.coerce.number().int().parse(reply);
    return waitMs < 0
      ? { admitted: true }
      : { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  };

  return {
    results: createRedisResultStore(redis, keys, options.resultTtlSeconds),
    async enqueue(input) {
      const job = QueuedJob.parse(input);
      const jobId = randomUUID();
      const subject = jobSubject(job);
      const jobKeys = {
        pullKey: keys.subject(subject.key),
        jobKey: keys.job(jobId),
        repoKey: keys.repository(subject.repository),
      };
      const decision = await enqueueScript(redis, {
        ...jobKeys,
        jobId,
        headSha: subject.headSha,
        explicit: job.explicit,
        // A range job's revisions sit in the same field: the two shapes tell themselves apart.
        pullJson: JSON.stringify(Object.values(jobFields(job))[0]),
        jobTtlSeconds,
        pullTtlSeconds: PULL_STATE_TTL_SECONDS,
        repoWindowMs: REPOSITORY_LOAD_WINDOW_MS,
        newBase: job.reason === 'base-changed',
      });
      if (decision.kind === 'duplicate') {
        const current = decision.currentJobId;
        return current ? { status: 'duplicate', jobId: current } : { status: 'duplicate' };
      }
      if (decision.kind === 'coalesced')
        return { status: 'coalesced', jobId: decision.waitingJobId };
      const priority = Math.min(decision.priority, MAX_PRIORITY);
      await addOrRollBack(queue, redis, { keys, jobKeys }, { jobId, priority }, job);
      // The script took the PR's waiting job out of its state, so it can never start: one
      // a worker holds right now (held back, about to wait again) is cancelled by START.
      const previous = decision.previousWaiting;
      if (previous !== '') await removeWaiting(previous, `replaced by job ${jobId}`);
      return { status: previous !== '' ? 'replaced' : 'queued', jobId };
    },
    async cancel(pull) {
      const parsed = PullRef.parse(pull);
      const waiting = await cancelScript(redis, keys.pull(parsed));
      if (!waiting) return;
      await removeWaiting(waiting, 'pull request closed');
      await redis.zrem(keys.repository(parsed), waiting);
    },
    admit: limit,
    state: (jobId) => readJobState(redis, keys, jobId),
    async depth() {
      const counts = await queue.getJobCounts(
        'waiting',
        'prioritized',
        'active',
        'delayed',
        'failed',
      );
      const count = (state: string) => counts[state] ?? 0;
      return {
        waiting: count('waiting') + count('prioritized'),
        active: count('active'),
        delayed: count('delayed'),
        failed: count('failed'),
      };
    },
    ping: () => pingRedis(redis),
    async firstSeen(deliveryId) {
      const set = await redis.set(keys.delivery(deliveryId), '1', 'EX', deliveryTtl, 'NX');
      return set === 'OK';
    },
    async forget(deliveryId) {
      await redis.del(keys.delivery(deliveryId));
    },
    async close() {
      await endUnready(redis, () => queue.waitUntilReady());
      await queue.close();
      await closeRedis(redis);
    },
  };
}

/** Without the BullMQ job the PR state would point at nothing: undo our side, then fail. */
async function addOrRollBack(
  queue: Queue,
  redis: Redis,
  where: { keys: RedisKeys; jobKeys: JobKeys },
  added: { jobId: string; priority: number },
  job: QueuedJob,
): Promise<void> {
  const { jobId, priority } = added;
  try {
    await queue.add(BULL_JOB_NAME, { job }, { jobId, priority });
  } catch (err) {
    const reason = 'could not be queued';
    const prefixes = { alive: where.keys.alivePrefix, job: where.keys.jobPrefix };
    const ended = { jobId, headSha: jobSubject(job).headSha };
    await settleScript(redis, where.jobKeys, prefixes, ended, 'failed', reason).catch(
      () => undefined,
    );
    throw err;
  }
}

/**
 * A fixed window per bucket: the first call starts it, calls past `count` inside it are
 * refused. Returns -1 when admitted, else the milliseconds until the window ends.
 */
const ADMIT = `
local calls = redis.call('INCR', KEYS[1])
if calls == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if calls <= tonumber(ARGV[1]) then return -1 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) * 1000 end
return ttl`;

/** The job's subject as enqueue stored it: a range names revisions, a PR a number. */
const Subject = z
  .string()
  .transform((text): unknown => JSON.parse(text))
  .pipe(
    z.union([
      RangeRef.transform((range) => ({ range })),
      RenderRef.transform((render) => ({ render })),
      PullRef.transform((pull) => ({ pull })),
    ]),
  );

const JobHash = z.object({
  pull: Subject,
  headSha: z.string().optional(),
  status: z.enum(['waiting', 'active', 'completed', 'failed', 'cancelled']),
  attempts: z.coerce.number().int().nonnegative(),
  reason: z.string().optional(),
});

async function readJobState(
  redis: Redis,
  keys: RedisKeys,
  jobId: string,
): Promise<JobState | undefined> {
  const parsed = JobHash.safeParse(await redis.hgetall(keys.job(jobId)));
  if (!parsed.success) return undefined;
  const { pull: subject, headSha, status, attempts, reason } = parsed.data;
  const state: JobState = { jobId, ...subject, status, attempts };
  if (headSha !== undefined) state.headSha = headSha;
  if (reason !== undefined) state.reason = reason;
  return state;
}

async function pingRedis(redis: Redis): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), PING_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([redis.ping(), timeout])) === 'PONG';
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
