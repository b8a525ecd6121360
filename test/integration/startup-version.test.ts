/**
 * `fluxlens serve` and `fluxlens worker` say which version runs: in the first line each logs
 * and on /healthz, the version of package.json (the one `fluxlens --version` prints).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubEmulator, type GitHubEmulator } from '../support/github-emulator.js';
import { projectRoot } from '../support/paths.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { freePort, startFluxlensProcess, type ServiceProcess } from '../support/service.js';

const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  version: string;
};
const TOKEN = 'ghp_startupVersionTest0123456789abcdefgh';

let redis: TestRedis;
let emulator: GitHubEmulator;
let cacheDir: string;
const started: ServiceProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  emulator = await startGitHubEmulator({ user: { login: 'ci-bot', token: TOKEN } });
  emulator.allow('GET', '/user');
  cacheDir = mkdtempSync(join(tmpdir(), 'fluxlens-startup-'));
}, 30_000);

afterAll(async () => {
  for (const process of started) {
    process.kill('SIGTERM');
    await process.exited;
  }
  await emulator.close();
  await redis.stop();
  rmSync(cacheDir, { recursive: true, force: true });
});

async function env(): Promise<NodeJS.ProcessEnv> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? cacheDir,
    FLUXLENS_PORT: String(await freePort()),
    FLUXLENS_HOST: '127.0.0.1',
    FLUXLENS_METRICS_PORT: String(await freePort()),
    FLUXLENS_WEBHOOK_SECRET: 'startup-version-secret',
    FLUXLENS_GITHUB_TOKEN: TOKEN,
    FLUXLENS_GITHUB_API_URL: emulator.apiUrl,
    FLUXLENS_CACHE_DIR: cacheDir,
    FLUXLENS_REDIS_URL: redis.url,
    FLUXLENS_REDIS_PREFIX: uniquePrefix(),
  };
}

/** The first JSON line the process logged. */
function firstLogLine(process: ServiceProcess): Record<string, unknown> {
  const line = process
    .output()
    .split('\n')
    .find((l) => l.startsWith('{'));
  return JSON.parse(line ?? '{}') as Record<string, unknown>;
}

describe('the running version', () => {
  it('is the first thing serve logs, and its /healthz answer', async () => {
    const serveEnv = await env();
    const serve = await startFluxlensProcess('serve', serveEnv);
    started.push(serve);

    expect(firstLogLine(serve)).toMatchObject({
      msg: 'fluxlens serve starting',
      version: manifest.version,
      node: process.version,
    });
    const health = await fetch(`http://127.0.0.1:${serveEnv['FLUXLENS_PORT']}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok', version: manifest.version });
  }, 60_000);

  it('is the first thing a worker logs, and its /healthz answer', async () => {
    const workerEnv = await env();
    const worker = await startFluxlensProcess('worker', workerEnv);
    started.push(worker);

    expect(firstLogLine(worker)).toMatchObject({
      msg: 'fluxlens worker starting',
      version: manifest.version,
      node: process.version,
    });
    const health = await fetch(`http://127.0.0.1:${workerEnv['FLUXLENS_METRICS_PORT']}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok', version: manifest.version });
  }, 60_000);
});
