/**
 * The queue, the worker and the result store on a Redis that asks for a password (the
 * default user's, or an ACL user's), and on one that speaks only TLS with a certificate of
 * a private CA (FLUXLENS_REDIS_CA_PATH): real redis-server processes of the test's own.
 * A wrong password and an untrusted certificate fail readiness, and no log line carries
 * the password.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../src/config.js';
import { SetupError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { type RedisConnection, createRedisQueue, startRedisWorker } from '../../src/queue/index.js';
import { type RedisServer, startRedisServer, uniquePrefix } from '../support/redis.js';
import { sleep } from '../support/service.js';
import { makeTestCertificate } from '../support/tls.js';
import { reviewJob, sha } from '../support/queue/queue-test-kit.js';

const PASSWORD = 'default-user-pw-4e1b9c';
const USER = 'fluxlens';
const USER_PASSWORD = 'acl-user-pw-93d0aa';
const WRONG = 'wrong-pw-c81f27';

let auth: RedisServer;
let tls: RedisServer;
let dir: string;
let caPath: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fluxlens-redis-tls-'));
  const certificate = makeTestCertificate();
  caPath = join(dir, 'ca.pem');
  const keyPath = join(dir, 'key.pem');
  writeFileSync(caPath, certificate.cert);
  writeFileSync(keyPath, certificate.key);
  // The grant docs/service.md suggests: every command, only keys under the prefix.
  const users = ['--user', USER, 'on', `>${USER_PASSWORD}`, '~fluxlens-test-*', '+@all'];
  [auth, tls] = await Promise.all([
    startRedisServer({ args: ['--requirepass', PASSWORD, ...users] }),
    startRedisServer({
      tls: { certFile: caPath, keyFile: keyPath },
      args: ['--tls-ca-cert-file', caPath, '--requirepass', PASSWORD],
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([auth?.stop(), tls?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The service's own logger, its JSON lines kept for the test. */
function capturedLogger() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (l) => lines.push(l) } });
  return { logger, lines };
}

/** A review through the queue and a worker, its result stored and read back. */
async function reviewThrough(connection: RedisConnection): Promise<string | undefined> {
  const prefix = uniquePrefix();
  const { logger } = capturedLogger();
  const queue = createRedisQueue({ connection, prefix, logger });
  cleanups.push(() => queue.close());
  const worker = await startRedisWorker({
    connection,
    prefix,
    concurrency: 1,
    logger,
    processor: async (job) => {
      if (!('pull' in job)) throw new Error('this test queues pull requests only');
      await queue.results.put(job.pull, job.headSha ?? '', '{"verdict":"ok"}');
    },
  });
  cleanups.push(() => worker.close());
  const job = reviewJob({ headSha: sha('d') });
  const outcome = await queue.enqueue(job);
  const jobId = outcome.jobId ?? '';
  const deadline = Date.now() + 30_000;
  while ((await queue.state(jobId))?.status !== 'completed') {
    if (Date.now() > deadline) throw new Error('the review did not complete');
    await sleep(100);
  }
  return (await queue.results.get(job.pull))?.resultJson;
}

describe('Redis with a password', () => {
  it.each([
    ['the default user', () => `redis://:${PASSWORD}@127.0.0.1:${auth.port}/3`],
    ['an ACL user', () => `redis://${USER}:${USER_PASSWORD}@127.0.0.1:${auth.port}/0`],
  ])('queues, runs and stores a review as %s', async (_who, url) => {
    expect(await reviewThrough(url())).toBe('{"verdict":"ok"}');
  });

  it('is not ready with a wrong password, and never logs the password', async () => {
    const { logger, lines } = capturedLogger();
    // What the queue hands its logger, before the logger's own serializers see it.
    const raw: string[] = [];
    const recording = {
      debug: (fields: object, message?: string) => logger.debug(fields, message),
      info: (fields: object, message?: string) => logger.info(fields, message),
      warn: (fields: object, message?: string) => {
        raw.push(inspect(fields, { depth: 5 }));
        logger.warn(fields, message);
      },
      error: (fields: object, message?: string) => {
        raw.push(inspect(fields, { depth: 5 }));
        logger.error(fields, message);
      },
    };
    const url = `redis://${USER}:${WRONG}@127.0.0.1:${auth.port}/0`;
    const queue = createRedisQueue({ connection: url, prefix: uniquePrefix(), logger: recording });
    cleanups.push(() => queue.close());

    expect(await queue.ping()).toBe(false);
    const deadline = Date.now() + 10_000;
    while (!lines.some((line) => line.includes('queue lost its Redis connection'))) {
      if (Date.now() > deadline) throw new Error('the refusal was not logged');
      await sleep(50);
    }
    expect(lines.join('\n')).toMatch(/WRONGPASS/);
    expect(raw.join('\n')).toMatch(/name: 'auth'/);
    expect([...lines, ...raw].join('\n')).not.toContain(WRONG);
  });
});

describe('Redis over TLS (rediss://)', () => {
  const env = (extra: NodeJS.ProcessEnv) =>
    loadServiceConfig('worker', {
      FLUXLENS_REDIS_URL: `rediss://:${PASSWORD}@127.0.0.1:${tls.port}`,
      ...extra,
    });

  it('queues, runs and stores a review against a certificate of the CA in FLUXLENS_REDIS_CA_PATH', async () => {
    const config = env({ FLUXLENS_REDIS_CA_PATH: caPath });
    expect(config.redisCa).toContain('BEGIN CERTIFICATE');

    const result = await reviewThrough({ url: config.redisUrl ?? '', ca: config.redisCa ?? '' });

    expect(result).toBe('{"verdict":"ok"}');
  });

  it('refuses a server whose certificate no trusted CA signed', async () => {
    const config = env({});
    const queue = createRedisQueue({ connection: config.redisUrl ?? '', prefix: uniquePrefix() });
    cleanups.push(() => queue.close());

    expect(await queue.ping()).toBe(false);
  });

  it('stops startup on a CA file for a plain redis:// URL, or one it cannot read', () => {
    const plain = { FLUXLENS_REDIS_URL: `redis://127.0.0.1:${auth.port}` };
    expect(() => loadServiceConfig('worker', { ...plain, FLUXLENS_REDIS_CA_PATH: caPath })).toThrow(
      SetupError,
    );
    expect(() => env({ FLUXLENS_REDIS_CA_PATH: join(dir, 'missing.pem') })).toThrow(
      /FLUXLENS_REDIS_CA_PATH: cannot read .*missing\.pem \(ENOENT\)/,
    );
  });
});
