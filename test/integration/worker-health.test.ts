/**
 * `fluxlens worker` as a process of its own: /healthz answers while Redis is not up yet (so
 * liveness does not restart a worker whose Redis is still starting), /readyz says why it
 * is not ready until Redis, behind a password, answers; and /readyz reports credentials
 * the GitHub emulator refuses, on a Redis that speaks only TLS (FLUXLENS_REDIS_CA_PATH), as
 * `fluxlens serve` does on it too. Nothing they print carries the password or the key.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type GitHubEmulator,
  createTestAppKey,
  startGitHubEmulator,
} from '../support/github-emulator.js';
import { APP_ID, testAppKey } from '../support/github-fixture.js';
import { projectRoot } from '../support/paths.js';
import { type RedisServer, startRedisServer, uniquePrefix } from '../support/redis.js';
import { freePort, sleep, startFluxlensProcess } from '../support/service.js';
import { makeTestCertificate } from '../support/tls.js';

const PASSWORD = 'worker-redis-pw-5a7e21';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Worker {
  output: () => string;
  get: (path: string) => Promise<{ status: number; body: string }>;
}

async function startEmulator(): Promise<GitHubEmulator> {
  const emulator = await startGitHubEmulator({
    app: { id: APP_ID, slug: 'fluxlens-test', publicKey: testAppKey().publicKey },
  });
  emulator.allow('GET', '/app');
  cleanups.push(() => emulator.close());
  return emulator;
}

/** `fluxlens worker` from the sources, its output kept; SIGTERM and a wait on cleanup. */
async function startWorker(env: NodeJS.ProcessEnv): Promise<Worker> {
  const cache = mkdtempSync(join(tmpdir(), 'fluxlens-worker-'));
  const metricsPort = await freePort();
  const entry = join(projectRoot, 'test/support/fluxlens-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', entry, 'worker'], {
    cwd: projectRoot,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? cache,
      FLUXLENS_CACHE_DIR: cache,
      FLUXLENS_METRICS_PORT: String(metricsPort),
      FLUXLENS_REDIS_PREFIX: uniquePrefix(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    rmSync(cache, { recursive: true, force: true });
  });
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}${path}`);
    return { status: res.status, body: await res.text() };
  };
  return { output: () => output, get };
}

/** Polls until `probe` holds; a bound on liveness, not on speed. */
async function until(probe: () => Promise<boolean>, what: string, output: () => string) {
  const deadline = Date.now() + 30_000;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await sleep(100);
  }
}

function appEnv(emulator: GitHubEmulator, privateKey: string): NodeJS.ProcessEnv {
  return {
    FLUXLENS_GITHUB_APP_ID: String(APP_ID),
    FLUXLENS_GITHUB_PRIVATE_KEY: privateKey,
    FLUXLENS_GITHUB_API_URL: emulator.apiUrl,
  };
}

/** A Redis that speaks only TLS, with a password, and the settings that reach it. */
async function startTlsRedis(): Promise<{ env: NodeJS.ProcessEnv }> {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-redis-tls-'));
  const certificate = makeTestCertificate();
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  writeFileSync(certFile, certificate.cert);
  writeFileSync(keyFile, certificate.key);
  const redis = await startRedisServer({
    tls: { certFile, keyFile },
    args: ['--tls-ca-cert-file', certFile, '--requirepass', PASSWORD],
  });
  // Stopped after the processes, which need it to shut down cleanly.
  cleanups.unshift(async () => {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = {
    FLUXLENS_REDIS_URL: `rediss://:${PASSWORD}@127.0.0.1:${redis.port}`,
    FLUXLENS_REDIS_CA_PATH: certFile,
  };
  return { env };
}

describe('fluxlens worker health', () => {
  it('is alive before Redis answers, and ready once Redis (with a password) does', async () => {
    const emulator = await startEmulator();
    const redisPort = await freePort();
    const worker = await startWorker({
      ...appEnv(emulator, testAppKey().privateKey),
      FLUXLENS_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${redisPort}/0`,
    });

    await until(
      async () => (await worker.get('/healthz')).status === 200,
      '/healthz',
      worker.output,
    );
    await until(
      async () => emulator.requests('GET', '/app').some((r) => r.status === 200),
      'the credential check',
      worker.output,
    );
    const waiting = await worker.get('/readyz');
    expect(waiting.status).toBe(503);
    expect(JSON.parse(waiting.body)).toEqual({
      ok: false,
      checks: { redis: false, github: true },
      reason: 'Redis does not answer',
    });
    expect(worker.output()).not.toContain('"worker started"');

    const redis: RedisServer = await startRedisServer({
      port: redisPort,
      args: ['--requirepass', PASSWORD],
    });
    // Stopped after the worker, which needs it to shut down cleanly.
    cleanups.unshift(() => redis.stop());

    await until(async () => (await worker.get('/readyz')).status === 200, '/readyz', worker.output);
    expect(JSON.parse((await worker.get('/readyz')).body)).toEqual({
      ok: true,
      checks: { redis: true, github: true },
    });
    await until(async () => worker.output().includes('"worker started"'), 'start', worker.output);
    expect((await worker.get('/metrics')).body).toMatch(/^# HELP /m);
    expect(worker.output()).not.toContain(PASSWORD);
  });

  it('is not ready while GitHub refuses its App key, and says so without the key', async () => {
    const emulator = await startEmulator();
    const redis = await startTlsRedis();
    const wrongKey = createTestAppKey().privateKey;
    const worker = await startWorker({ ...appEnv(emulator, wrongKey), ...redis.env });

    await until(async () => worker.output().includes('"worker started"'), 'start', worker.output);
    await until(
      async () => (await worker.get('/readyz')).body.includes('rejected'),
      'the refusal',
      worker.output,
    );
    const refused = await worker.get('/readyz');

    expect(refused.status).toBe(503);
    const body = JSON.parse(refused.body) as { checks: unknown; reason: string };
    expect(body.checks).toEqual({ redis: true, github: false });
    expect(body.reason).toMatch(/^GitHub rejected the App 4242 and its private key/);
    expect((await worker.get('/healthz')).status).toBe(200);
    const printed = `${refused.body}\n${worker.output()}`;
    expect(printed).toMatch(/"msg":"GitHub rejected the credentials"/);
    for (const line of wrongKey.split('\n').filter((l) => l.length > 20)) {
      expect(printed).not.toContain(line);
    }
    expect(printed).not.toContain(PASSWORD);
  });

  it('makes fluxlens serve ready on a TLS Redis of a private CA, with accepted credentials', async () => {
    const emulator = await startEmulator();
    const redis = await startTlsRedis();
    const port = await freePort();
    const cache = mkdtempSync(join(tmpdir(), 'fluxlens-serve-'));
    const serve = await startFluxlensProcess('serve', {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? cache,
      FLUXLENS_CACHE_DIR: cache,
      FLUXLENS_PORT: String(port),
      FLUXLENS_HOST: '127.0.0.1',
      FLUXLENS_INSECURE_NO_WEBHOOK_SECRET: 'true',
      FLUXLENS_REDIS_PREFIX: uniquePrefix(),
      ...appEnv(emulator, testAppKey().privateKey),
      ...redis.env,
    });
    cleanups.push(async () => {
      serve.kill('SIGTERM');
      await serve.exited;
      rmSync(cache, { recursive: true, force: true });
    });

    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    await until(async () => (await readyz()).status === 200, '/readyz', serve.output);

    expect((await readyz()).body).toEqual({ ok: true, checks: { queue: true, github: true } });
    expect(serve.output()).not.toContain(PASSWORD);
  });
});
