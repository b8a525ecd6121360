/**
 * The service example's world and scenario, shared by scripts/example-service (through
 * example-service-process.ts) and the image smoke test (test/image/): a GitHub REST emulator and
 * a git smart-HTTP server on loopback stand in for GitHub, the repository is the one
 * scripts/example builds, and a signed pull_request.opened starts the review. Without Redis,
 * `fluxlens serve` reviews in its own process; with a Redis URL, a `fluxlens worker` does. Who
 * runs them is the `entry` of startFluxlensProcess: the sources by default, or a container of
 * the image (fluxlens-image-process.ts).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { EmulatedCheckRun, EmulatedComment } from './github-emulator-state.js';
import { createTestAppKey, startGitHubEmulator, type GitHubEmulator } from './github-emulator.js';
import { git, publish, startGitServer } from './git-server.js';
import {
  deliverWebhook,
  eventually,
  freePort,
  pullRequestPayload,
  startFluxlensProcess,
  type PullTarget,
  type ServiceProcess,
} from './service.js';

const APP = { id: 1, slug: 'fluxlens-example' };
/** The login the emulator gives the App's installation token: the comment's author. */
export const EXAMPLE_BOT = `${APP.slug}[bot]`;
/** The check run fluxlens writes; the name is the product's (src/review/publish.ts). */
export const EXAMPLE_CHECK_RUN = 'fluxlens';
const REVIEW_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 15_000;

export interface ExampleOptions {
  repoDir: string;
  base: string;
  head: string;
  /** Runs `fluxlens serve` / `fluxlens worker` (see startFluxlensProcess); the sources by default. */
  entry?: string;
  /** With it, serve only queues and a worker started beside it reviews. */
  redisUrl?: string;
  /** More settings for serve and the worker (FLUXLENS_API_TOKEN, say). */
  env?: Record<string, string>;
}

/** Undo steps, run last-in first-out whatever happened. */
export type Cleanup = Array<() => Promise<void> | void>;

export interface ExampleWorld {
  emulator: GitHubEmulator;
  serve: ServiceProcess;
  worker: ServiceProcess | undefined;
  serverUrl: string;
  webhookSecret: string;
  target: PullTarget;
  headSha: string;
  baseSha: string;
}

export interface ExampleReview {
  run: EmulatedCheckRun;
  comment: EmulatedComment;
  latencyMs: number;
}

const progress = (line: string) => process.stderr.write(`example:service: ${line}\n`);

/** GitHub (emulated) with the example repository, its PR, and fluxlens in front. */
export async function startExampleWorld(
  options: ExampleOptions,
  work: string,
  cleanup: Cleanup,
): Promise<ExampleWorld> {
  const target: PullTarget = {
    owner: 'example',
    repo: 'home-cluster',
    pull: 1,
    installation: 1,
    headRef: options.head,
    baseRef: options.base,
  };
  const rev = (name: string) => git(options.repoDir, 'rev-parse', `${name}^{commit}`);
  const [baseSha, headSha] = [rev(options.base), rev(options.head)];
  const served = join(work, 'served');
  publish(served, {
    owner: target.owner,
    repo: target.repo,
    workDir: options.repoDir,
    // The head branch too: a review without a pull request fetches it by name.
    refs: {
      [`refs/heads/${target.baseRef}`]: baseSha,
      [`refs/heads/${target.headRef}`]: headSha,
      [`refs/pull/${target.pull}/head`]: headSha,
    },
  });
  const gitServer = await startGitServer({ root: served });
  cleanup.push(() => gitServer.close());

  const key = createTestAppKey();
  const emulator = await startGitHubEmulator({ app: { ...APP, publicKey: key.publicKey } });
  cleanup.push(() => emulator.close());
  const fullName = `${target.owner}/${target.repo}`;
  emulator.seedInstallation({ id: target.installation, repositories: [fullName] });
  emulator.seedPull({
    owner: target.owner,
    repo: target.repo,
    number: target.pull,
    headSha,
    headRef: target.headRef,
    baseRef: target.baseRef,
  });
  for (const method of ['GET', 'POST', 'PATCH']) emulator.allow(method, '**');
  progress(`GitHub emulator on ${emulator.url}, git server on ${gitServer.url}`);

  const started = await startService(
    { apiUrl: emulator.apiUrl, gitUrl: gitServer.url, privateKey: key.privateKey },
    options,
    work,
    cleanup,
  );
  return { ...started, emulator, target, headSha, baseSha };
}

/** serve (and with Redis a worker) against the emulated GitHub, with fetch kept to loopback. */
async function startService(
  github: { apiUrl: string; gitUrl: string; privateKey: string },
  options: ExampleOptions,
  work: string,
  cleanup: Cleanup,
): Promise<Pick<ExampleWorld, 'serve' | 'worker' | 'serverUrl' | 'webhookSecret'>> {
  const port = await freePort();
  const webhookSecret = randomBytes(32).toString('hex');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? work,
    ...pick(process.env, ['FLUXLENS_TOOLS_DIR', 'TMPDIR', 'FLUXLENS_TEST_IMAGE']),
    FLUXLENS_HOST: '127.0.0.1',
    FLUXLENS_PORT: String(port),
    FLUXLENS_WEBHOOK_SECRET: webhookSecret,
    FLUXLENS_GITHUB_APP_ID: String(APP.id),
    FLUXLENS_GITHUB_PRIVATE_KEY: github.privateKey,
    FLUXLENS_GITHUB_API_URL: github.apiUrl,
    FLUXLENS_GITHUB_GIT_URL: github.gitUrl,
    // An empty chart cache of its own, and offline: the remote chart is a render error.
    FLUXLENS_CACHE_DIR: join(work, 'cache'),
    FLUXLENS_OFFLINE: 'true',
    ...(options.redisUrl === undefined
      ? {}
      : {
          FLUXLENS_REDIS_URL: options.redisUrl,
          FLUXLENS_REDIS_PREFIX: `fluxlens-example-${randomBytes(4).toString('hex')}`,
        }),
    ...options.env,
  };
  const launch = options.entry === undefined ? {} : { entry: options.entry };
  const serve = await startFluxlensProcess('serve', env, launch);
  cleanup.push(() => stop(serve));
  const serverUrl = `http://127.0.0.1:${port}`;
  if (options.redisUrl === undefined) {
    progress(
      `fluxlens serve on ${serverUrl}, reviewing in its own process (no FLUXLENS_REDIS_URL)`,
    );
    return { serve, worker: undefined, serverUrl, webhookSecret };
  }
  const metrics = { FLUXLENS_METRICS_PORT: String(await freePort()) };
  const worker = await startFluxlensProcess('worker', { ...env, ...metrics }, launch);
  cleanup.push(() => stop(worker));
  progress(`fluxlens serve on ${serverUrl} queues in Redis, a fluxlens worker reviews`);
  return { serve, worker, serverUrl, webhookSecret };
}

/** SIGTERM, as an orchestrator stops it; SIGKILL if it has not exited in time. */
async function stop(started: ServiceProcess): Promise<void> {
  started.kill('SIGTERM');
  const timer = setTimeout(() => started.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await started.exited;
  clearTimeout(timer);
}

function pick(env: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

/** Delivers pull_request.opened and waits for the check run to complete and the comment. */
export async function reviewExample(
  world: ExampleWorld,
  signal?: AbortSignal,
): Promise<ExampleReview> {
  const { emulator, target, headSha } = world;
  const payload = pullRequestPayload('opened', headSha, target);
  const response = await deliverWebhook(
    world.serverUrl,
    world.webhookSecret,
    'pull_request',
    payload,
  );
  if (response.status !== 202) {
    throw new Error(`the webhook was answered ${response.status}: ${await response.text()}`);
  }
  const acceptedAt = performance.now();
  progress(`webhook accepted (202): pull_request.opened for ${headSha.slice(0, 12)}`);
  const run = await eventually(
    () =>
      emulator
        .state()
        .checkRuns.find(
          (r) => r.name === EXAMPLE_CHECK_RUN && r.head_sha === headSha && r.status === 'completed',
        ),
    'the check run to complete',
    REVIEW_TIMEOUT_MS,
    signal,
  );
  const latencyMs = performance.now() - acceptedAt;
  const comment = await eventually(
    () =>
      emulator
        .state()
        .comments.find((c) => c.issueNumber === target.pull && c.author === EXAMPLE_BOT),
    'the comment',
    REVIEW_TIMEOUT_MS,
    signal,
  );
  return { run, comment, latencyMs };
}

/** Runs the undo steps last-in first-out, reporting (not throwing) what fails. */
export async function runCleanup(cleanup: Cleanup): Promise<void> {
  for (const undo of cleanup.reverse()) {
    await Promise.resolve()
      .then(undo)
      .catch((err: unknown) => progress(`cleaning up: ${String(err)}`));
  }
}
