/**
 * One review as the worker runs it, in-process: the real mirror fetch over git smart HTTP,
 * the real analysis, and the real GitHub client writing to the emulator. The queue is the
 * one seam faked here (a JobContext): these tests are about what a review publishes.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classify } from '../../src/errors.js';
import { loadServiceConfig } from '../../src/config.js';
import { createGitHubClient } from '../../src/github/index.js';
import { createLogger, type Logger } from '../../src/logger.js';
import {
  createInlineQueue,
  type JobContext,
  type JobProcessor,
  type ResultStore,
  type ReviewJob,
} from '../../src/queue/index.js';
import { COMMENT_MARKER, createReviewProcessor } from '../../src/review/index.js';
import {
  createTestAppKey,
  startGitHubEmulator,
  type GitHubEmulator,
} from '../support/github-emulator.js';
import { git, publish, startGitServer, type GitServer } from '../support/git-server.js';
import { bootstrap, yamlStream } from '../support/repo.js';

const OWNER = 'acme';
const REPO = 'gitops';
const PULL = { owner: OWNER, repo: REPO, pullNumber: 3 };
const INSTALLATION = 9;
const AUTHOR = ['-c', 'user.name=Sam', '-c', 'user.email=sam@example.org'];

let work: string;
let emulator: GitHubEmulator;
let gitServer: GitServer;
const heads: Record<string, string> = {};
const key = createTestAppKey();

const configMap = (color: string) =>
  yamlStream({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'app', namespace: 'apps' },
    data: { color },
  });

/** main, and PR heads: a recolour, the same recolour, a broken policy at base. */
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'fluxlens-review-'));
  const dir = join(work, 'repo');
  mkdirSync(dir);
  git(dir, 'init', '-q', '--initial-branch=main');
  const commit = (branch: string, files: Record<string, string>) => {
    git(dir, 'checkout', '-q', '-B', branch);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    git(dir, 'add', '-A');
    git(dir, ...AUTHOR, 'commit', '-q', '-m', branch);
    return git(dir, 'rev-parse', 'HEAD');
  };
  heads['main'] = commit('main', {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/app.yaml': configMap('red'),
  });
  heads['recolour'] = commit('recolour', { 'clusters/prod/app.yaml': configMap('blue') });
  git(dir, 'checkout', '-q', 'main');
  heads['broken-base'] = commit('broken-base', { '.fluxlens.yaml': 'failOn: sometimes\n' });
  heads['after-broken'] = commit('after-broken', { 'clusters/prod/app.yaml': configMap('green') });
  const served = join(work, 'served');
  publish(served, {
    owner: OWNER,
    repo: REPO,
    workDir: dir,
    refs: { 'refs/heads/main': 'main', 'refs/heads/broken-base': 'broken-base' },
  });
  gitServer = await startGitServer({ root: served });
  emulator = await startGitHubEmulator({
    app: { id: 55, slug: 'fluxlens-test', publicKey: key.publicKey },
  });
  emulator.seedInstallation({ id: INSTALLATION, repositories: [`${OWNER}/${REPO}`] });
  for (const method of ['GET', 'POST', 'PATCH']) emulator.allow(method, '**');
  pushHead = (sha: string) =>
    publish(served, { owner: OWNER, repo: REPO, workDir: dir, refs: { 'refs/pull/3/head': sha } });
}, 60_000);

afterAll(async () => {
  await emulator.close();
  await gitServer.close();
  rmSync(work, { recursive: true, force: true });
});

let pushHead: (sha: string) => void = () => {};

function processor(
  env: Record<string, string> = {},
  options: { logger?: Logger; results?: ResultStore } = {},
): JobProcessor {
  const config = loadServiceConfig('server', {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? work,
    ...(process.env['FLUXLENS_TOOLS_DIR']
      ? { FLUXLENS_TOOLS_DIR: process.env['FLUXLENS_TOOLS_DIR'] }
      : {}),
    FLUXLENS_WEBHOOK_SECRET: 'whsec-0123456789abcdef',
    FLUXLENS_GITHUB_GIT_URL: gitServer.url,
    FLUXLENS_CACHE_DIR: join(work, `cache-${randomBytes(4).toString('hex')}`),
    ...env,
  });
  const github = createGitHubClient({
    apiUrl: emulator.apiUrl,
    auth: { kind: 'app', appId: '55', privateKey: key.privateKey },
    pacing: { writeIntervalMs: 0, notificationIntervalMs: 0 },
  });
  return createReviewProcessor({
    config,
    github,
    results: options.results ?? createInlineQueue().results,
    logger: options.logger ?? createLogger({ level: 'silent' }),
    attempts: 2,
  });
}

function context(attempt = 1, current = true): JobContext {
  return {
    jobId: randomBytes(4).toString('hex'),
    attempt,
    signal: new AbortController().signal,
    isCurrent: () => Promise.resolve(current),
  };
}

function job(head: string, base = 'main'): ReviewJob {
  return {
    pull: PULL,
    installationId: INSTALLATION,
    headSha: head,
    baseRef: base,
    reason: 'synchronize',
    explicit: false,
    requestedAt: new Date().toISOString(),
  };
}

const runs = (sha: string) => emulator.state().checkRuns.filter((r) => r.head_sha === sha);
const ours = () => emulator.state().comments.filter((c) => c.body.includes(COMMENT_MARKER));

describe('a review', () => {
  it('writes nothing when a newer job took over before it could publish', async () => {
    const head = heads['recolour'] ?? '';
    pushHead(head);
    const commentsBefore = ours().length;
    await processor()(job(head), context(1, false));
    expect(runs(head).every((r) => r.status !== 'completed')).toBe(true);
    expect(ours()).toHaveLength(commentsBefore);
  });

  it('leaves the comment alone in "never" mode and still completes the check run', async () => {
    const head = heads['recolour'] ?? '';
    pushHead(head);
    await processor({ FLUXLENS_COMMENT: 'never' })(job(head), context());
    expect(runs(head).find((r) => r.status === 'completed')?.conclusion).toBe('success');
    expect(ours()).toHaveLength(0);
  });

  it('ends a permanent failure as a failed check run that says what went wrong, without retrying', async () => {
    const head = heads['after-broken'] ?? '';
    pushHead(head);
    const failure = await processor()(job(head, 'broken-base'), context()).catch((e: unknown) => e);
    expect(failure).toMatchObject({ name: 'PermanentJobError' });
    const run = runs(head).find((r) => r.status === 'completed');
    expect(run?.conclusion).toBe('failure');
    expect(run?.output.title).toBe('Could not analyse this pull request');
    expect(run?.output.summary).toContain('.fluxlens.yaml: failOn');
  });

  it('retries a transient failure quietly, and reports it on the last attempt', async () => {
    const head = heads['recolour'] ?? '';
    pushHead(head);
    gitServer.failNext(1, { status: 502 });
    const quiet = await processor()(job(head), context(1)).catch((e: unknown) => e);
    expect(quiet).toMatchObject({ name: 'MirrorError' });
    expect(classify(quiet)).toBe('transient');
    const completedBefore = runs(head).filter((r) => r.status === 'completed').length;
    gitServer.failNext(1, { status: 502 });
    const last = await processor()(job(head), context(2)).catch((e: unknown) => e);
    expect(last).toMatchObject({ name: 'PermanentJobError' });
    const reported = runs(head).filter((r) => r.status === 'completed');
    expect(reported.length).toBe(completedBefore + 1);
    expect(reported.at(-1)?.output.title).toMatch(/a service it needs did not answer/);
  });

  it("logs the analysis's lines with the job, the pull request and the head it reviews", async () => {
    const head = heads['recolour'] ?? '';
    pushHead(head);
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (l) => lines.push(l) } });
    const queue = createInlineQueue();
    queue.startWorker({
      concurrency: 1,
      processor: processor({}, { logger, results: queue.results }),
    });
    try {
      const queued = await queue.enqueue(job(head));
      for (let waited = 0; !(await queue.results.has(PULL, head)); waited += 50) {
        if (waited > 60_000) throw new Error(`the review did not finish:\n${lines.join('')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const finished = logged.find((line) => line['msg'] === 'analysis finished');
      expect(finished).toMatchObject({
        jobId: queued.jobId,
        owner: OWNER,
        repo: REPO,
        pullNumber: PULL.pullNumber,
        attempt: 1,
        headSha: head,
      });
      expect(logged.find((line) => line['msg'] === 'review published')).toMatchObject({
        jobId: queued.jobId,
        headSha: head,
        verdict: expect.any(String) as unknown,
      });
    } finally {
      await queue.close();
    }
  });

  it('skips a PR from a fork that a comment asked for, saying why', async () => {
    const head = heads['recolour'] ?? '';
    emulator.seedPull({
      owner: OWNER,
      repo: REPO,
      number: 3,
      headSha: head,
      baseRef: 'main',
      fork: true,
    });
    const headless: ReviewJob = { ...job(head), explicit: true, reason: 'comment-command' };
    delete headless.headSha;
    delete headless.baseRef;
    const before = runs(head).length;
    await processor()(headless, context());
    const run = runs(head).at(-1);
    expect(runs(head).length).toBe(before + 1);
    expect(run?.conclusion).toBe('neutral');
    expect(run?.output.title).toBe('Not rendered: pull requests from forks are off');
  });
});
