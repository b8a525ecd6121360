/**
 * The service example (scripts/example-service, `npm run example:service`): `fluxlens serve`
 * reviews a pull request end to end on this machine. A GitHub REST emulator and a git
 * smart-HTTP server on loopback stand in for GitHub; the repository is the one
 * scripts/example builds (`--repo`, with `--base` and `--head` branches); a signed
 * pull_request.opened starts the review. The check run, the comment and the first review's
 * latency go to stdout, progress to stderr; everything it started is stopped, and what it
 * wrote removed, on the way out (also on Ctrl-C).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
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
const BOT = `${APP.slug}[bot]`;
/** The check run fluxlens writes; the name is the product's (src/review/publish.ts). */
const CHECK_RUN = 'fluxlens';
const REVIEW_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 15_000;

interface Options {
  repoDir: string;
  base: string;
  head: string;
}

/** Undo steps, run last-in first-out whatever happened. */
type Cleanup = Array<() => Promise<void> | void>;

interface World {
  emulator: GitHubEmulator;
  serve: ServiceProcess;
  serverUrl: string;
  webhookSecret: string;
  target: PullTarget;
  headSha: string;
  baseSha: string;
}

const progress = (line: string) => process.stderr.write(`example:service: ${line}\n`);

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string' },
      base: { type: 'string', default: 'main' },
      head: { type: 'string' },
    },
    strict: true,
  });
  if (values.repo === undefined || values.head === undefined) {
    throw new Error('usage: example-service-process.ts --repo DIR [--base BRANCH] --head BRANCH');
  }
  return { repoDir: values.repo, base: values.base, head: values.head };
}

/** GitHub (emulated) with the example repository, its PR, and fluxlens serve in front. */
async function startWorld(options: Options, work: string, cleanup: Cleanup): Promise<World> {
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
    refs: { [`refs/heads/${target.baseRef}`]: baseSha, [`refs/pull/${target.pull}/head`]: headSha },
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

  const started = await startServe(
    { apiUrl: emulator.apiUrl, gitUrl: gitServer.url, privateKey: key.privateKey },
    work,
    cleanup,
  );
  return { ...started, emulator, target, headSha, baseSha };
}

/** `fluxlens serve` without Redis, against the emulated GitHub, with fetch kept to loopback. */
async function startServe(
  github: { apiUrl: string; gitUrl: string; privateKey: string },
  work: string,
  cleanup: Cleanup,
): Promise<Pick<World, 'serve' | 'serverUrl' | 'webhookSecret'>> {
  const port = await freePort();
  const webhookSecret = randomBytes(32).toString('hex');
  const serve = await startFluxlensProcess('serve', {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? work,
    ...pick(process.env, ['FLUXLENS_TOOLS_DIR', 'TMPDIR']),
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
  });
  cleanup.push(() => stop(serve));
  const serverUrl = `http://127.0.0.1:${port}`;
  progress(`fluxlens serve on ${serverUrl}, reviewing in its own process (no FLUXLENS_REDIS_URL)`);
  return { serve, serverUrl, webhookSecret };
}

/** SIGTERM, as an orchestrator stops it; SIGKILL if it has not exited in time. */
async function stop(serve: ServiceProcess): Promise<void> {
  serve.kill('SIGTERM');
  const timer = setTimeout(() => serve.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await serve.exited;
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

interface Review {
  run: EmulatedCheckRun;
  comment: EmulatedComment;
  latencyMs: number;
}

/** Delivers pull_request.opened and waits for the check run to complete and the comment. */
async function review(world: World, signal: AbortSignal): Promise<Review> {
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
          (r) => r.name === CHECK_RUN && r.head_sha === headSha && r.status === 'completed',
        ),
    'the check run to complete',
    REVIEW_TIMEOUT_MS,
    signal,
  );
  const latencyMs = performance.now() - acceptedAt;
  const comment = await eventually(
    () => emulator.state().comments.find((c) => c.issueNumber === target.pull && c.author === BOT),
    'the comment',
    REVIEW_TIMEOUT_MS,
    signal,
  );
  return { run, comment, latencyMs };
}

function report(world: World, options: Options, result: Review): string {
  const { run, comment } = result;
  const short = (sha: string) => sha.slice(0, 12);
  const { owner, repo, pull } = world.target;
  return [
    `Pull request ${owner}/${repo}#${pull}: ${options.head} (${short(world.headSha)}) into ${options.base} (${short(world.baseSha)})`,
    '',
    `Check run "${run.name}": ${run.status}, conclusion: ${run.conclusion ?? 'none'}`,
    `Title: ${run.output.title ?? ''}`,
    'Summary:',
    '',
    (run.output.summary ?? '').trimEnd(),
    '',
    `Comment by ${comment.author}:`,
    '',
    comment.body.trimEnd(),
    '',
    `First analysis: ${(result.latencyMs / 1000).toFixed(1)} s from the webhook's acceptance to the completed check run`,
    '',
  ].join('\n');
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const stopping = new AbortController();
  for (const name of ['SIGINT', 'SIGTERM'] as const) process.once(name, () => stopping.abort());
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-example-service-'));
  const cleanup: Cleanup = [() => rmSync(work, { recursive: true, force: true })];
  let world: World | undefined;
  try {
    world = await startWorld(options, work, cleanup);
    const result = await review(world, stopping.signal);
    process.stdout.write(report(world, options, result));
    return 0;
  } catch (err) {
    progress(err instanceof Error ? err.message : String(err));
    if (world) process.stderr.write(`fluxlens serve's log:\n${world.serve.output()}`);
    return 1;
  } finally {
    for (const undo of cleanup.reverse()) {
      await Promise.resolve()
        .then(undo)
        .catch((err: unknown) => progress(`cleaning up: ${String(err)}`));
    }
  }
}

process.exitCode = await main();
