/**
 * The BullMQ adapter on a real redis-server against the shared semantics table, plus what
 * only a durable queue does: a killed worker's job moves on, jobs survive a restart.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type QueueWorker,
  type RedisQueue,
  createRedisQueue,
  startRedisWorker,
} from '../../src/queue/index.js';
import { projectRoot } from '../support/paths.js';
import { type TestRedis, deleteKeys, startRedis, uniquePrefix } from '../support/redis.js';
import { describeQueueSemantics } from '../support/queue/queue-semantics.js';
import {
  type QueueAdapter,
  reviewJob,
  scriptedProcessor,
  waitFor,
  waitForStatus,
} from '../support/queue/queue-test-kit.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** Short locks so a dead worker's job is free again within a couple of seconds. */
const fastLocks = { lockDurationMs: 1_000, stalledIntervalMs: 500 };

const redisAdapter: QueueAdapter = {
  name: 'redis',
  create(options) {
    const prefix = uniquePrefix();
    const queues: RedisQueue[] = [];
    const workers: QueueWorker[] = [];
    const newQueue = () => {
      const queue = createRedisQueue({ connection: redis.url, prefix, ...options });
      queues.push(queue);
      return queue;
    };
    return Promise.resolve({
      queue: newQueue(),
      secondQueue: () => Promise.resolve(newQueue()),
      async startWorker(processor, { concurrency = 1, graceMs = 5_000 } = {}) {
        const worker = await startRedisWorker({
          connection: redis.url,
          prefix,
          processor,
          concurrency,
          graceMs,
          ...fastLocks,
        });
        workers.push(worker);
        return worker;
      },
      async dispose() {
        await Promise.all(workers.map((worker) => worker.close()));
        await Promise.all(queues.map((queue) => queue.close()));
        await deleteKeys(redis.url, prefix);
      },
    });
  },
};

describeQueueSemantics(redisAdapter);

describe('redis queue', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const open = () => {
    const prefix = uniquePrefix();
    const queue = createRedisQueue({ connection: redis.url, prefix, backoffMs: 50 });
    cleanups.push(
      () => deleteKeys(redis.url, prefix),
      () => queue.close(),
    );
    const startWorker = async (processor: Parameters<typeof startRedisWorker>[0]['processor']) => {
      const worker = await startRedisWorker({
        connection: redis.url,
        prefix,
        processor,
        concurrency: 1,
        ...fastLocks,
      });
      cleanups.push(() => worker.close());
      return worker;
    };
    return { prefix, queue, startWorker };
  };

  it('hands the job of a worker killed mid-job to another worker, which completes it once', async () => {
    const { prefix, queue, startWorker } = open();
    const script = join(projectRoot, 'test', 'support', 'queue-worker-process.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', script, redis.url, prefix, '1000'], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      child.kill('SIGKILL');
      await exited;
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => output.includes('ready\n'), 'the worker process to start', 30_000);

    const { jobId = '' } = await queue.enqueue(reviewJob());
    await waitFor(
      () => output.includes(`started ${jobId}\n`),
      'the worker process to take the job',
    );
    expect(await queue.state(jobId)).toMatchObject({ status: 'active' });
    child.kill('SIGKILL');
    await exited;

    const { calls, processor } = scriptedProcessor([undefined]);
    await startWorker(processor);
    const state = await waitForStatus(queue, jobId, 'completed');
    expect(state.attempts).toBe(1);
    expect(calls).toEqual([{ job: reviewJob(), attempt: 1 }]);
    expect(await queue.depth()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  it('keeps a waiting job across a Redis restart', async (ctx) => {
    if (!redis.canRestart) ctx.skip();
    const { queue, startWorker } = open();
    const { jobId = '' } = await queue.enqueue(reviewJob());
    await redis.restart();
    const { calls, processor } = scriptedProcessor([undefined]);
    await startWorker(processor);
    await waitForStatus(queue, jobId, 'completed');
    expect(calls).toHaveLength(1);
  });

  it('forgets a delivery id once its time to live has passed', async () => {
    const prefix = uniquePrefix();
    const queue = createRedisQueue({ connection: redis.url, prefix, deliveryTtlSeconds: 1 });
    cleanups.push(
      () => deleteKeys(redis.url, prefix),
      () => queue.close(),
    );
    expect(await queue.firstSeen('delivery-1')).toBe(true);
    expect(await queue.firstSeen('delivery-1')).toBe(false);
    await waitFor(() => queue.firstSeen('delivery-1'), 'the delivery id to expire');
  });

  it('says Redis is down when it is', async () => {
    const queue = createRedisQueue({ connection: 'redis://127.0.0.1:1', prefix: uniquePrefix() });
    cleanups.push(() => queue.close());
    expect(await queue.ping()).toBe(false);
  });
});
