/**
 * The inline adapter (one process, no Redis) against the shared semantics table, plus
 * what only it does: results in files that survive a restart.
 */
import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type InlineQueue, type QueueWorker, createInlineQueue } from '../../../src/queue/index.js';
import { describeQueueSemantics } from '../../support/queue/queue-semantics.js';
import {
  type QueueAdapter,
  reviewJob,
  scriptedProcessor,
  sha,
  waitForStatus,
} from '../../support/queue/queue-test-kit.js';

const inlineAdapter: QueueAdapter = {
  name: 'inline',
  create(options) {
    const queue = createInlineQueue(options);
    const workers: QueueWorker[] = [];
    return Promise.resolve({
      queue,
      // One process has one queue: a second server is the same object.
      secondQueue: () => Promise.resolve(queue),
      startWorker(processor, { concurrency = 1, graceMs = 5_000 } = {}) {
        const worker = queue.startWorker({ processor, concurrency, graceMs });
        workers.push(worker);
        return Promise.resolve(worker);
      },
      async dispose() {
        await Promise.all(workers.map((worker) => worker.close()));
        await queue.close();
      },
    });
  },
};

describeQueueSemantics(inlineAdapter);

describe('inline queue', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fluxlens-inline-queue-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };
  const open = (options: Parameters<typeof createInlineQueue>[0]): InlineQueue => {
    const queue = createInlineQueue(options);
    cleanups.push(() => queue.close());
    return queue;
  };

  it('keeps results on disk across a restart', async () => {
    const resultDir = await tempDir();
    const pull = reviewJob().pull;
    const before = open({ resultDir });
    await before.results.put(pull, sha('a'), '{"verdict":"caution"}\n');
    await before.close();
    const after = open({ resultDir });
    expect(await after.results.get(pull)).toEqual({
      headSha: sha('a'),
      resultJson: '{"verdict":"caution"}\n',
    });
    expect(await after.results.has(pull, sha('a'))).toBe(true);
  });

  it('leaves one file per pull request and no temp files behind', async () => {
    const resultDir = await tempDir();
    const queue = open({ resultDir });
    const pull = { owner: 'Acme', repo: '../etc', pullNumber: 1 };
    await queue.results.put(pull, sha('a'), '{}');
    await queue.results.put(pull, sha('b'), '{"big":true}');
    expect(await readdir(resultDir)).toEqual(['acme~%2e%2e%2fetc~1.result']);
  });

  it('lists results on disk newest first by when they were written, names decoded', async () => {
    const resultDir = await tempDir();
    const queue = open({ resultDir });
    const odd = { owner: 'Acme', repo: '../etc', pullNumber: 1 };
    const fleet = reviewJob().pull;
    await queue.results.put(odd, sha('a'), '{"verdict":"info"}');
    await queue.results.put(fleet, sha('b'), '{"verdict":"danger"}');
    // Written an hour apart, as a day of reviews is, whatever the file system's clock grain.
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(join(resultDir, 'acme~%2e%2e%2fetc~1.result'), hourAgo, hourAgo);
    const listed = await queue.results.list({ limit: 10 });
    expect(listed.map((r) => [r.pull, r.headSha, r.resultJson])).toEqual([
      [fleet, sha('b'), '{"verdict":"danger"}'],
      [{ owner: 'acme', repo: '../etc', pullNumber: 1 }, sha('a'), '{"verdict":"info"}'],
    ]);
    expect(listed[1]?.storedAt).toBe(hourAgo.getTime());
    const one = await queue.results.list({
      limit: 10,
      repository: { owner: 'ACME', repo: '../ETC' },
    });
    expect(one.map((r) => r.headSha)).toEqual([sha('a')]);
    expect(await queue.results.list({ limit: 1 })).toHaveLength(1);
  });

  it('leaves expired results out of the list', async () => {
    const resultDir = await tempDir();
    const queue = open({ resultDir, resultTtlSeconds: 3600 });
    await queue.results.put(reviewJob().pull, sha('a'), '{}');
    const dayAgo = new Date(Date.now() - 24 * 3600_000);
    await utimes(join(resultDir, 'acme~fleet-infra~42.result'), dayAgo, dayAgo);
    expect(await queue.results.list({ limit: 10 })).toEqual([]);
  });

  it('runs jobs with the processor it was created with until it closes', async () => {
    const { calls, processor } = scriptedProcessor([undefined]);
    const queue = open({ processor, concurrency: 2 });
    const { jobId = '' } = await queue.enqueue(reviewJob());
    await waitForStatus(queue, jobId, 'completed');
    await queue.close();
    expect(calls).toHaveLength(1);
    await expect(queue.enqueue(reviewJob({ headSha: sha('b') }))).rejects.toThrow('closed');
    expect(await queue.ping()).toBe(false);
  });

  it('refuses a job that does not match the schema', async () => {
    const queue = open({});
    await expect(queue.enqueue({ ...reviewJob(), headSha: 'main' })).rejects.toThrow();
  });
});
