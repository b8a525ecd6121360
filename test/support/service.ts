/**
 * The service with real parts around it, for end-to-end tests: a real redis-server, the
 * GitHub REST emulator, a git smart-HTTP server holding a Flux repository with a PR, and
 * `fluxlens serve` / `fluxlens worker` as separate processes. Deliveries are GitHub's own
 * example payloads, adapted to this repository and signed with the webhook secret.
 */
import { spawn } from 'node:child_process';
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
export const APP_ID = 1001;

export interface ServiceProcess {
  readonly output: () => string;
  /** Its process id, for what /proc says of it (a benchmark's memory figures). */
  readonly pid: number;
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
  /** The key prefix every process of this world uses in Redis. */
  redisPrefix: string;
  /** FLUXLENS_CACHE_DIR of the processes (results live under it without Redis). */
  cacheDir: string;
  /**
   * Moves refs/pull/N/head to head number `index` and tells the emulator; N is the world's
   * PR unless `pull` names another (opened on the spot, with the same branches).
   */
  pushHead(index: number, pull?: number): string;
  start(command: 'serve' | 'worker', env?: Record<string, string>): Promise<ServiceProcess>;
  serverUrl: string;
  deliver(event: string, payload: Payload, options?: DeliveryOptions): Promise<Response>;
  close(): Promise<void>;
}

export interface DeliveryOptions {
  deliveryId?: string;
  /** A signature other than the right one (or none). */
  signature?: string | null;
  /** Gives up as GitHub does (it waits 10 s for an answer). */
  signal?: AbortSignal;
}

/** A free TCP port on loopback, closed again so a process can take it. */
export async function freePort(): Promise<number> {
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
  options: { redis: boolean; /** Head revisions to commit; 3 unless said. */ heads?: number },
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
  const revisions = commitRevisions(repoDir, files, options.heads ?? HEADS);
  publish(served, {
    owner: OWNER,
    repo: REPO,
    workDir: repoDir,
    refs: { 'refs/heads/main': 'main' },
  });
  const gitServer = await startGitServer({ root: served });
  const port = await freePort();
  const prefix = uniquePrefix();
  const processes: ServiceProcess[] = [];
  const world: ServiceWorld = {
    redis,
    emulator,
    gitServer,
    secrets,
    revisions,
    redisPrefix: prefix,
    cacheDir: join(work, 'cache'),
    serverUrl: `http://127.0.0.1:${port}`,
    pushHead(index, pull = PULL) {
      const sha = revisions.heads[index] ?? '';
      publish(served, {
        owner: OWNER,
        repo: REPO,
        workDir: repoDir,
        refs: { [`refs/pull/${pull}/head`]: sha },
      });
      emulator.seedPull({
        owner: OWNER,
        repo: REPO,
        number: pull,
        headSha: sha,
        headRef: 'feature',
        baseRef: 'main',
      });
      return sha;
    },
    async start(command, extra = {}) {
      const env: NodeJS.ProcessEnv = {
        ...baseProcessEnv(work),
        FLUXLENS_PORT: String(port),
        FLUXLENS_HOST: '127.0.0.1',
        FLUXLENS_WEBHOOK_SECRET: secrets.webhook,
        FLUXLENS_API_TOKEN: secrets.apiToken,
        FLUXLENS_GITHUB_APP_ID: String(APP_ID),
        FLUXLENS_GITHUB_PRIVATE_KEY: secrets.privateKey,
        FLUXLENS_GITHUB_API_URL: emulator.apiUrl,
        FLUXLENS_GITHUB_GIT_URL: gitServer.url,
        FLUXLENS_CACHE_DIR: world.cacheDir,
        FLUXLENS_REDIS_PREFIX: prefix,
        FLUXLENS_METRICS_PORT: '0',
        FLUXLENS_WORKER_LOCK_SECONDS: '2',
        FLUXLENS_SHUTDOWN_GRACE_SECONDS: '5',
        FLUXLENS_LOG_LEVEL: 'debug',
        ...(redis ? { FLUXLENS_REDIS_URL: redis.url } : {}),
        ...extra,
      };
      const started = await startFluxlensProcess(command, env);
      processes.push(started);
      return started;
    },
    deliver: (event, payload, opts = {}) =>
      deliverWebhook(world.serverUrl, secrets.webhook, event, payload, opts),
    async close() {
      for (const started of processes) started.kill('SIGKILL');
      await emulator.close();
      await gitServer.close();
      await redis?.stop();
      rmSync(work, { recursive: true, force: true });
      // Every request is allowed here; GitHub's REST description still judges each one.
      emulator.assertNoUnexpected();
    },
  };
  return world;
}

/** What every fluxlens process of a test gets from the test's own environment. */
function baseProcessEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? home,
    ...(process.env['FLUXLENS_TOOLS_DIR']
      ? { FLUXLENS_TOOLS_DIR: process.env['FLUXLENS_TOOLS_DIR'] }
      : {}),
  };
}

/**
 * `fluxlens serve` or `fluxlens worker` from the sources, as a child process of its own
 * (`entry`: test/support/fluxlens-process.ts, or another script that runs it the same way)
 * with its output captured. Resolves once it is up: serve answers /healthz on
 * 127.0.0.1:FLUXLENS_PORT, a worker logs that it started. One that does not come up is
 * killed, and the error carries its output.
 */
export async function startFluxlensProcess(
  command: 'serve' | 'worker',
  env: NodeJS.ProcessEnv,
  options: { entry?: string } = {},
): Promise<ServiceProcess> {
  const entry = options.entry ?? join(projectRoot, 'test/support/fluxlens-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', entry, command], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exit: number | string | undefined;
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => {
      exit = code ?? signal ?? 'unknown';
      resolve(exit);
    }),
  );
  const started: ServiceProcess = {
    output: () => output,
    pid: child.pid ?? 0,
    exited,
    kill: (signal) => child.kill(signal),
  };
  const up =
    command === 'serve'
      ? async () => {
          const url = `http://127.0.0.1:${env['FLUXLENS_PORT'] ?? '8080'}/healthz`;
          return fetch(url).then(
            (r) => r.ok,
            () => false,
          );
        }
      : async () => output.includes('"worker started"');
  const deadline = Date.now() + 30_000;
  while (!(await up())) {
    if (exit !== undefined || Date.now() > deadline) {
      child.kill('SIGKILL');
      const why = exit === undefined ? 'did not come up' : `exited (${exit}) before it was up`;
      throw new Error(`fluxlens ${command} ${why}:\n${output}`);
    }
    await sleep(100);
  }
  return started;
}

/** POSTs one webhook delivery to `fluxlens serve`, signed with `secret` as GitHub signs it. */
export async function deliverWebhook(
  serverUrl: string,
  secret: string,
  event: string,
  payload: Payload,
  options: DeliveryOptions = {},
): Promise<Response> {
  const body = JSON.stringify(payload);
  const signature = options.signature === undefined ? signBody(secret, body) : options.signature;
  return fetch(`${serverUrl}/webhooks/github`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': options.deliveryId ?? randomBytes(8).toString('hex'),
      ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
    },
    body,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

const AUTHOR = ['-c', 'user.name=Sam', '-c', 'user.email=sam@example.org'];
/** Revisions of the PR's head branch the `files` callback is asked for by default: 0, 1, 2. */
const HEADS = 3;

function commitRevisions(
  dir: string,
  files: (step: 'base' | number) => Record<string, string>,
  count: number,
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
  for (let i = 0; i < count; i++) {
    git(dir, 'checkout', '-q', '-B', `head-${i}`, 'main');
    write(files(i));
    git(dir, 'add', '-A');
    git(dir, ...AUTHOR, 'commit', '-q', '-m', `head ${i}`);
    heads.push(git(dir, 'rev-parse', 'HEAD').trim());
  }
  git(dir, 'checkout', '-q', 'main');
  return { base, heads };
}

/** The pull request a webhook payload is about; the e2e world's PR by default. */
export interface PullTarget {
  owner: string;
  repo: string;
  pull: number;
  installation: number;
  headRef: string;
  baseRef: string;
}

/** PR `pull` of the world's repository, from its `feature` branch into `main`. */
export const worldPull = (pull = PULL): PullTarget => ({
  owner: OWNER,
  repo: REPO,
  pull,
  installation: INSTALLATION,
  headRef: 'feature',
  baseRef: 'main',
});

/** GitHub's pull_request example, made about one repository, PR and head. */
export function pullRequestPayload(
  action: string,
  headSha: string,
  target: PullTarget = worldPull(),
): Payload {
  const payload = example('pull_request', action);
  set(payload, 'number', target.pull);
  set(payload, 'pull_request.number', target.pull);
  set(payload, 'pull_request.draft', false);
  set(payload, 'pull_request.head.sha', headSha);
  set(payload, 'pull_request.head.ref', target.headRef);
  set(payload, 'pull_request.base.ref', target.baseRef);
  const repo = {
    id: 1,
    name: target.repo,
    full_name: `${target.owner}/${target.repo}`,
    owner: { login: target.owner },
  };
  set(payload, 'pull_request.head.repo', { ...repo });
  set(payload, 'pull_request.base.repo', { ...repo });
  set(payload, 'repository', { ...(payload['repository'] as object), ...repo });
  set(payload, 'installation', { id: target.installation });
  return payload;
}

/** Polls `probe` every 100 ms until it returns something other than undefined. */
export async function eventually<T>(
  probe: () => T | undefined,
  what: string,
  timeoutMs = 60_000,
  signal?: AbortSignal,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (signal?.aborted) throw new Error(`stopped while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
