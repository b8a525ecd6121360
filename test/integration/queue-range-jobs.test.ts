/**
 * Reviews without a pull request (the MCP endpoint's review of a branch) on both queues: a
 * job of their own, coalesced per repository, base and head, their result kept under the
 * job's id; and a repository's stored reviews listed newest first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createInlineQueue,
  createRedisQueue,
  type JobProcessor,
  type QueuedJob,
  type QueueWorker,
  type RangeJob,
  startRedisWorker,
} from '../../src/queue/index.js';
import { type QueueUnderTest, sha, waitForStatus } from '../support/queue/queue-test-kit.js';
import { deleteKeys, startRedis, type TestRedis, uniquePrefix } from '../support/redis.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

interface Opened {
  queue: QueueUnderTest;
  startWorker(processor: JobProcessor): Promise<QueueWorker>;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const adapters: Array<[string, () => Promise<Opened>]> = [
  [
    'inline, results in files',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'fluxlens-range-jobs-'));
      const queue = createInlineQueue({ resultDir: dir });
      cleanups.push(
        () => rm(dir, { recursive: true, force: true }),
        () => queue.close(),
      );
      return {
        queue,
        startWorker: async (processor) => queue.startWorker({ processor, concurrency: 1 }),
      };
    },
  ],
  [
    'redis',
    async () => {
      const prefix = uniquePrefix();
      const queue = createRedisQueue({ connection: redis.url, prefix });
      cleanups.push(
        () => deleteKeys(redis.url, prefix),
        () => queue.close(),
      );
      return {
        queue,
        async startWorker(processor) {
          const options = { connection: redis.url, prefix, processor, concurrency: 1 };
          const worker = await startRedisWorker(options);
          cleanups.push(() => worker.close());
          return worker;
        },
      };
    },
  ],
];

function rangeJob(head: string): RangeJob {
  return {
    range: { owner: 'acme', repo: 'fleet-infra', base: 'main', head },
    reason: 'range',
    explicit: true,
    requestedAt: '2024-05-01T12:00:00.000Z',
  };
}

describe.each(adapters)('reviews without a pull request on the %s queue', (_name, open) => {
  it('queues a branch once while it waits, another branch apart, and hands each its range', async () => {
    const { queue, startWorker } = await open();
    const first = await queue.enqueue(rangeJob('feature'));
    const again = await queue.enqueue(rangeJob('feature'));
    const other = await queue.enqueue(rangeJob('other'));
    expect(first.status).toBe('queued');
    expect(again).toEqual({ status: 'coalesced', jobId: first.jobId });
    expect(other.status).toBe('queued');
    expect(other.jobId).not.toBe(first.jobId);
    expect(await queue.state(first.jobId ?? '')).toMatchObject({
      status: 'waiting',
      range: rangeJob('feature').range,
    });

    const seen: QueuedJob[] = [];
    await startWorker(async (job, ctx) => {
      seen.push(job);
      await queue.results.putRange(ctx.jobId, sha(seen.length.toString()), `{"n":${seen.length}}`);
    });
    await waitForStatus(queue, first.jobId ?? '', 'completed');
    await waitForStatus(queue, other.jobId ?? '', 'completed');
    expect(seen.map((job) => ('range' in job ? job.range.head : 'a pull request'))).toEqual([
      'feature',
      'other',
    ]);
    expect(await queue.results.getRange(first.jobId ?? '')).toEqual({
      headSha: sha('1'),
      resultJson: '{"n":1}',
    });
    expect(await queue.results.getRange('no-such-job')).toBeUndefined();
  });

  it("lists a repository's stored reviews newest first, and no other repository's", async () => {
    const { queue } = await open();
    const pull = (repo: string, pullNumber: number) => ({ owner: 'acme', repo, pullNumber });
    await queue.results.put(pull('fleet-infra', 3), sha('a'), '{}');
    await queue.results.put(pull('other', 1), sha('b'), '{}');
    // Stored a moment later, so it is the newer of the two (times are kept in milliseconds).
    await new Promise((resolve) => setTimeout(resolve, 20));
    await queue.results.put(pull('fleet-infra', 12), sha('c'), '{}');
    const listed = await queue.results.list({
      limit: 10,
      repository: { owner: 'ACME', repo: 'Fleet-Infra' },
    });
    expect(listed.map(({ pull, headSha }) => ({ pullNumber: pull.pullNumber, headSha }))).toEqual([
      { pullNumber: 12, headSha: sha('c') },
      { pullNumber: 3, headSha: sha('a') },
    ]);
    const one = { limit: 1, repository: { owner: 'acme', repo: 'fleet-infra' } };
    expect(await queue.results.list(one)).toHaveLength(1);
  });
});
