/**
 * The service with real parts around it, for end-to-end tests: a real redis-server, the
 * GitHub REST emulator, a git smart-HTTP server holding a Flux repository with a PR, and
 * `fluxlens serve` / `fluxlens worker` as separate processes. Deliveries are GitHub's own
 * example payloads, adapted to this repository and signed with the webhook secret.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { example, set, signBody, type Payload } from '../unit/server/support/github-examples.js';
import { createTestAppKey, startGitHubEmulator, type GitHubEmulator } from './github-emulator.js';
import { git, publish, startGitServer, type GitServer } from './git-server.js';
import { projectRoot } from './paths.js';
import { startRedis, uniquePrefix, type TestRedis } from './redis.js';

export const OWNER = 'home-ops';
export const REPO = 'fleet';
export const PULL = 7;
export const INSTALLATION = 4242;
const APP_ID = 1001;

export interface ServiceProcess {
  readonly output: () => string;
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
  kill(signal: NodeJS.Signals): void;
}

export interface Revisions {
  base: string;
  heads: string[];
}

export interface ServiceWorld {
  redis: TestRedis | undefined;
  emulator: GitHubEmulator;
  gitServer: GitServer;
  secrets: { webhook: string; apiToken: string; privateKey: string };
  revisions: Revisions;
  /** Moves refs/pull/N/head to head number `index` and tells the emulator. */
  pushHead(index: number): string;
  start(command: 'serve' | 'worker', env?: Record<string, string>): Promise<ServiceProcess>;
  serverUrl: string;
  deliver(event: string, payload: Payload, options?: DeliveryOptions): Promise<Response>;
  close(): Promise<void>;
}

export interface DeliveryOptions {
  deliveryId?: string;
  /** A signature other than the right one (or none). */
  signature?: string | null;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A world around one repository: `main` is `files('base')`, and the PR's head can be any
 * of `files(0)`, `files(1)`, `files(2)` committed on top of it (see pushHead).
 */
export async function startServiceWorld(
  files: (step: 'base' | number) => Record<string, string>,
  options: { redis: boolean },
): Promise<ServiceWorld> {
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-e2e-'));
  const repoDir = join(work, 'work');
  const served = join(work, 'served');
  const redis = options.redis ? await startRedis() : undefined;
  const key = createTestAppKey();
  const secrets = {
    webhook: randomBytes(16).toString('hex'),
    apiToken: randomBytes(16).toString('hex'),
    privateKey: key.privateKey,
  };
  const emulator = await startGitHubEmulator({
    app: { id: APP_ID, slug: 'fluxlens-test', publicKey: key.publicKey },
  });
  emulator.seedInstallation({
    id: INSTALLATION,
    account: OWNER,
    repositories: [`${OWNER}/${REPO}`],
  });
  for (const method of ['GET', 'POST', 'PATCH']) emulator.allow(method, '**');
  const revisions = commitRevisions(repoDir, files);
  publish(served, {
    owner: OWNER,
    repo: REPO,
    workDir: repoDir,
    refs: { 'refs/heads/main': 'main' },
  });
  const gitServer = await startGitServer({ root: served });
  const port = await freePort();
  const prefix = uniquePrefix();
  const processes: ChildProcess[] = [];
  const world: ServiceWorld = {
    redis,
    emulator,
    gitServer,
    secrets,
    revisions,
    serverUrl: `http://127.0.0.1:${port}`,
    pushHead(index) {
      const sha = revisions.heads[index] ?? '';
      publish(served, {
        owner: OWNER,
        repo: REPO,
        workDir: repoDir,
        refs: { [`refs/pull/${PULL}/head`]: sha },
      });
      emulator.seedPull({
        owner: OWNER,
        repo: REPO,
        number: PULL,
        headSha: sha,
        headRef: 'feature',
        baseRef: 'main',
      });
      return sha;
    },
    async start(command, extra = {}) {
      const env: NodeJS.ProcessEnv = {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? work,
        ...(process.env['FLUXLENS_TOOLS_DIR']
          ? { FLUXLENS_TOOLS_DIR: process.env['FLUXLENS_TOOLS_DIR'] }
          : {}),
        FLUXLENS_PORT: String(port),
        FLUXLENS_HOST: '127.0.0.1',
        FLUXLENS_WEBHOOK_SECRET: secrets.webhook,
        FLUXLENS_API_TOKEN: secrets.apiToken,
        FLUXLENS_GITHUB_APP_ID: String(APP_ID),
        FLUXLENS_GITHUB_PRIVATE_KEY: secrets.privateKey,
        FLUXLENS_GITHUB_API_URL: emulator.apiUrl,
        FLUXLENS_GITHUB_GIT_URL: gitServer.url,
        FLUXLENS_CACHE_DIR: join(work, 'cache'),
        FLUXLENS_REDIS_PREFIX: prefix,
        FLUXLENS_METRICS_PORT: '0',
        FLUXLENS_WORKER_LOCK_SECONDS: '2',
        FLUXLENS_SHUTDOWN_GRACE_SECONDS: '5',
        FLUXLENS_LOG_LEVEL: 'debug',
        ...(redis ? { FLUXLENS_REDIS_URL: redis.url } : {}),
        ...extra,
      };
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(projectRoot, 'test/support/fluxlens-process.ts'), command],
        { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      processes.push(child);
      let output = '';
      child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | string>((resolve) =>
        child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
      );
      const started: ServiceProcess = {
        output: () => output,
        exited,
        kill: (signal) => child.kill(signal),
      };
      if (command === 'serve') await waitForHealth(world.serverUrl, started);
      else await waitForOutput(started, '"worker started"');
      return started;
    },
    async deliver(event, payload, opts = {}) {
      const body = JSON.stringify(payload);
      const signature =
        opts.signature === undefined ? signBody(secrets.webhook, body) : opts.signature;
      return fetch(`${world.serverUrl}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': event,
          'x-github-delivery': opts.deliveryId ?? randomBytes(8).toString('hex'),
          ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
        },
        body,
      });
    },
    async close() {
      for (const child of processes) child.kill('SIGKILL');
      await emulator.close();
      await gitServer.close();
      await redis?.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
  return world;
}

const AUTHOR = ['-c', 'user.name=Sam', '-c', 'user.email=sam@example.org'];
/** Revisions of the PR's head branch the `files` callback is asked for: 0, 1, 2. */
const HEADS = 3;

function commitRevisions(
  dir: string,
  files: (step: 'base' | number) => Record<string, string>,
): Revisions {
  const write = (content: Record<string, string>) => {
    for (const [path, text] of Object.entries(content)) {
      const full = join(dir, path);
      rmSync(full, { force: true });
      if (text !== '') {
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, text);
      }
    }
  };
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '--initial-branch=main');
  write(files('base'));
  git(dir, 'add', '-A');
  git(dir, ...AUTHOR, 'commit', '-q', '-m', 'base');
  const base = git(dir, 'rev-parse', 'HEAD').trim();
  const heads: string[] = [];
  for (let i = 0; i < HEADS; i++) {
    git(dir, 'checkout', '-q', '-B', `head-${i}`, 'main');
    write(files(i));
    git(dir, 'add', '-A');
    git(dir, ...AUTHOR, 'commit', '-q', '-m', `head ${i}`);
    heads.push(git(dir, 'rev-parse', 'HEAD').trim());
  }
  git(dir, 'checkout', '-q', 'main');
  return { base, heads };
}

/** GitHub's pull_request example, made about our repository, PR and head. */
export function pullRequestPayload(action: string, headSha: string): Payload {
  const payload = example('pull_request', action);
  set(payload, 'number', PULL);
  set(payload, 'pull_request.number', PULL);
  set(payload, 'pull_request.draft', false);
  set(payload, 'pull_request.head.sha', headSha);
  set(payload, 'pull_request.head.ref', 'feature');
  set(payload, 'pull_request.base.ref', 'main');
  const repo = { id: 1, name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } };
  set(payload, 'pull_request.head.repo', { ...repo });
  set(payload, 'pull_request.base.repo', { ...repo });
  set(payload, 'repository', { ...(payload['repository'] as object), ...repo });
  set(payload, 'installation', { id: INSTALLATION });
  return payload;
}

async function waitForHealth(url: string, process: ServiceProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`fluxlens serve did not come up:\n${process.output()}`);
}

async function waitForOutput(process: ServiceProcess, text: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (process.output().includes(text)) return;
    await sleep(100);
  }
  throw new Error(`no '${text}' from the process:\n${process.output()}`);
}

/** Polls `probe` until it returns something other than undefined. */
export async function eventually<T>(
  probe: () => T | undefined,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
