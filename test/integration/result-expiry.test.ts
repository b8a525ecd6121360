/**
 * Stored results go FLUXLENS_RESULT_TTL_DAYS after their PR's last review: in Redis by the
 * key's own expiry (read with PTTL, and one short TTL seen to lapse), on disk by the
 * file's modification time (set back with utimes rather than waited for).
 */
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../src/config.js';
import { createInlineQueue, createRedisQueue, type PullRef } from '../../src/queue/index.js';
import { type TestRedis, deleteKeys, startRedis, uniquePrefix } from '../support/redis.js';
import { sleep } from '../support/service.js';
import { sha } from '../support/queue/queue-test-kit.js';

const pull: PullRef = { owner: 'acme', repo: 'fleet-infra', pullNumber: 42 };
const DAY = 24 * 60 * 60;

/** Polls `probe` until it holds; a bound on liveness, not on speed. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('result expiry setting', () => {
  it.each([
    [{}, 30 * DAY],
    [{ FLUXLENS_RESULT_TTL_DAYS: '7' }, 7 * DAY],
    [{ FLUXLENS_RESULT_TTL_DAYS: '0' }, undefined],
  ])('with %j keeps results for %s seconds', (env, seconds) => {
    const config = loadServiceConfig('server', { ...env, FLUXLENS_WEBHOOK_SECRET: 'x' });
    expect(config.resultTtlSeconds).toBe(seconds);
  });
});

describe('results in Redis', () => {
  let redis: TestRedis;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  const open = (resultTtlSeconds?: number) => {
    const prefix = uniquePrefix();
    const queue = createRedisQueue({
      connection: redis.url,
      prefix,
      ...(resultTtlSeconds === undefined ? {} : { resultTtlSeconds }),
    });
    cleanups.push(
      () => deleteKeys(redis.url, prefix),
      () => queue.close(),
    );
    return { prefix, queue };
  };
  // Results are the only keys under `results:`; the queue keeps its own elsewhere.
  const resultKeys = (prefix: string) => client.keys(`${prefix}:results:*`);

  it('gives every key a stored result has the configured time to live, renewed by each write', async () => {
    const { prefix, queue } = open(21 * DAY);
    await queue.results.put(pull, sha('a'), '{"verdict":"ok"}');
    const keys = await resultKeys(prefix);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(20 * DAY * 1000);
      expect(ttl).toBeLessThanOrEqual(21 * DAY * 1000);
    }

    const [key = ''] = keys;
    await client.pexpire(key, 60_000);
    await queue.results.put(pull, sha('b'), '{"verdict":"caution"}');
    expect(await client.pttl(key)).toBeGreaterThan(20 * DAY * 1000);
  });

  it('keeps results forever when no time to live is set', async () => {
    const { prefix, queue } = open();
    await queue.results.put(pull, sha('a'), '{"verdict":"ok"}');
    const keys = await resultKeys(prefix);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(await client.pttl(key)).toBe(-1);
  });

  it('reads an expired result as absent', async () => {
    const { prefix, queue } = open(1);
    await queue.results.put(pull, sha('a'), '{"verdict":"ok"}');
    expect(await queue.results.has(pull, sha('a'))).toBe(true);

    await until(async () => (await queue.results.get(pull)) === undefined, 'the result to expire');
    expect(await queue.results.has(pull, sha('a'))).toBe(false);
    expect(await resultKeys(prefix)).toEqual([]);
  });
});

describe('results on disk (inline queue)', () => {
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fluxlens-results-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };
  const open = (resultDir: string, resultTtlSeconds?: number) => {
    const queue = createInlineQueue({
      resultDir,
      ...(resultTtlSeconds === undefined ? {} : { resultTtlSeconds }),
    });
    cleanups.push(() => queue.close());
    return queue;
  };
  const age = async (file: string, seconds: number) => {
    const then = new Date(Date.now() - seconds * 1000);
    await utimes(file, then, then);
  };

  it('reads a result written longer ago than its time to live as absent', async () => {
    const dir = await tempDir();
    const queue = open(dir, 7 * DAY);
    await queue.results.put(pull, sha('a'), '{"verdict":"ok"}');
    const [file = ''] = await readdir(dir);
    await age(join(dir, file), 6 * DAY);
    expect(await queue.results.get(pull)).toMatchObject({ headSha: sha('a') });

    await age(join(dir, file), 8 * DAY);
    expect(await queue.results.get(pull)).toBeUndefined();
    expect(await queue.results.has(pull, sha('a'))).toBe(false);
  });

  it('deletes expired results and leftover temp files at the first write after a start', async () => {
    const dir = await tempDir();
    const first = open(dir, 7 * DAY);
    const other: PullRef = { ...pull, pullNumber: 43 };
    await first.results.put(pull, sha('a'), '{"verdict":"ok"}');
    await first.results.put(other, sha('b'), '{"verdict":"ok"}');
    const files = await readdir(dir);
    const stale = files.find((name) => name.includes('42')) ?? '';
    await age(join(dir, stale), 8 * DAY);
    await writeFile(join(dir, `${stale}.crashed.tmp`), 'half');
    await age(join(dir, `${stale}.crashed.tmp`), 8 * DAY);

    const restarted = open(dir, 7 * DAY);
    await restarted.results.put({ ...pull, pullNumber: 44 }, sha('c'), '{"verdict":"ok"}');

    const left = await readdir(dir);
    expect(left).toHaveLength(2);
    expect(left).not.toContain(stale);
    expect(await restarted.results.get(other)).toMatchObject({ headSha: sha('b') });
  });

  it('keeps old results when no time to live is set', async () => {
    const dir = await tempDir();
    const queue = open(dir);
    await queue.results.put(pull, sha('a'), '{"verdict":"ok"}');
    const [file = ''] = await readdir(dir);
    await age(join(dir, file), 3650 * DAY);
    await open(dir).results.put({ ...pull, pullNumber: 43 }, sha('b'), '{}');
    expect(await queue.results.get(pull)).toMatchObject({ headSha: sha('a') });
  });
});
