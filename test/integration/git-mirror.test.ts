/**
 * The worker's bare mirrors against real git and a real smart-HTTP server (git
 * http-backend): a PR's refs fetched with an installation token, one fetch per repository
 * at a time, cancellation, and names from webhooks that are not GitHub's.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError, classify, UsageError } from '../../src/errors.js';
import { mergeBase } from '../../src/git/merge-base.js';
import { MirrorError } from '../../src/git/mirror-error.js';
import { ensureMirror, mirrorDir, type MirrorRequest } from '../../src/git/mirror.js';
import { readFileAtRevision } from '../../src/git/read-file.js';
import { ToolRunner, type ToolName, type ToolRunOptions } from '../../src/tool-runner.js';
import { basicToken, git, publish, startGitServer, type GitServer } from '../support/git-server.js';
import { makeRepo, type TestRepo } from '../support/repo.js';

const TOKEN = 'ghs_installationToken0123456789abcdef';

/** The real runner, noting every command it is asked to run. */
class RecordingRunner extends ToolRunner {
  readonly commands: string[][] = [];

  override run(tool: ToolName, args: readonly string[], options?: ToolRunOptions) {
    this.commands.push([tool, ...args]);
    return super.run(tool, args, options);
  }
}

let dirs: string[];
let server: GitServer;
let runner: RecordingRunner;
let work: TestRepo;
let cacheDir: string;
/** Commits of the upstream: main moved on after `feature` (PR 7) forked from `ancestor`. */
let shas: { ancestor: string; head: string; base: string };

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function push(refs: Record<string, string>): void {
  publish(server.root, { owner: 'acme', repo: 'fleet', workDir: work.dir, refs });
}

beforeEach(async () => {
  dirs = [];
  const root = tempDir('fluxlens-git-root-');
  cacheDir = tempDir('fluxlens-cache-');
  runner = new RecordingRunner({
    toolsBinDir: join(root, 'no-tools'),
    path: process.env['PATH'] ?? '',
    baseEnv: { HOME: tempDir('fluxlens-home-') },
  });
  work = makeRepo({ 'a.txt': '1\n' }, { git: true });
  dirs.push(work.dir);
  const ancestor = work.commit('ancestor');
  git(work.dir, 'checkout', '-q', '-b', 'feature');
  work.write({ 'b.txt': '2\n' });
  const head = work.commit('feature');
  git(work.dir, 'checkout', '-q', 'main');
  work.write({ 'c.txt': '3\n' });
  const base = work.commit('main moves on');
  shas = { ancestor, head, base };
  server = await startGitServer({ root, token: TOKEN });
  push({ 'refs/heads/main': 'main', 'refs/pull/7/head': 'feature', 'refs/pull/8/head': 'main' });
});

afterEach(async () => {
  await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function request(overrides: Partial<MirrorRequest> = {}): MirrorRequest {
  return {
    cacheDir,
    gitUrl: server.url,
    owner: 'acme',
    repo: 'fleet',
    token: TOKEN,
    baseRef: 'main',
    pullNumber: 7,
    timeoutMs: 30_000,
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected the call to fail'),
    (err: unknown) => err,
  );
}

/** Command lines of running processes that mention `fragment` (Linux /proc). */
function commandLines(fragment: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (line.includes(fragment)) found.push(line);
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

describe('ensureMirror', () => {
  it('creates a bare mirror on first use and returns the base branch and PR head tips', async () => {
    const mirror = await ensureMirror(runner, request());
    expect(mirror).toEqual({
      repoDir: join(cacheDir, 'mirrors', 'acme', 'fleet.git'),
      baseSha: shas.base,
      headSha: shas.head,
    });
    expect(git(mirror.repoDir, 'rev-parse', '--is-bare-repository')).toBe('true');
    expect(git(mirror.repoDir, 'for-each-ref', '--format=%(refname)').split('\n')).toEqual([
      'refs/heads/main',
      'refs/pull/7/head',
    ]);
  });

  it('brings the mirror up to date after a push and a force-push to the PR head', async () => {
    await ensureMirror(runner, request());
    git(work.dir, 'checkout', '-q', 'feature');
    work.write({ 'b.txt': 'pushed\n' });
    const pushed = work.commit('another push');
    push({ 'refs/pull/7/head': 'feature' });
    expect((await ensureMirror(runner, request())).headSha).toBe(pushed);

    git(work.dir, 'reset', '-q', '--hard', shas.ancestor);
    work.write({ 'b.txt': 'rewritten\n' });
    const rewritten = work.commit('rewritten history');
    git(work.dir, 'checkout', '-q', 'main');
    work.write({ 'c.txt': 'moved again\n' });
    const base = work.commit('main moves again');
    push({ 'refs/heads/main': 'main', 'refs/pull/7/head': 'feature' });
    expect(await ensureMirror(runner, request())).toMatchObject({
      baseSha: base,
      headSha: rewritten,
    });
    expect(runner.commands.filter((c) => c.includes('init'))).toHaveLength(1);
  });

  it('fetches again after a killed git left its lock files in the mirror', async () => {
    const { repoDir } = await ensureMirror(runner, request());
    writeFileSync(join(repoDir, 'refs', 'pull', '7', 'head.lock'), '');
    writeFileSync(join(repoDir, 'packed-refs.lock'), '');
    git(work.dir, 'checkout', '-q', 'feature');
    work.write({ 'b.txt': 'pushed\n' });
    const pushed = work.commit('another push');
    push({ 'refs/pull/7/head': 'feature' });
    expect((await ensureMirror(runner, request())).headSha).toBe(pushed);
  });

  it('finds the fork point of a PR whose base branch moved on, and reads its files offline', async () => {
    const mirror = await ensureMirror(runner, request());
    expect(await mergeBase(runner, mirror.repoDir, mirror.baseSha, mirror.headSha)).toBe(
      shas.ancestor,
    );
    await server.close();
    const file = await readFileAtRevision(runner, mirror.repoDir, mirror.headSha, 'b.txt', {
      maxBytes: 1000,
    });
    expect(file).toBe('2\n');
    server = await startGitServer({ root: tempDir('fluxlens-git-root-') });
  });
});

describe('ensureMirror with an installation token', () => {
  it.skipIf(!existsSync('/proc/self/cmdline'))(
    'sends the token as an Authorization header only, never in argv or the mirror config',
    async () => {
      const held = server.holdNext();
      const fetching = ensureMirror(runner, request());
      await held.arrived;
      const running = commandLines(server.url);
      expect(running.some((line) => line.includes('fetch'))).toBe(true);
      for (const line of running) {
        expect(line).not.toContain(TOKEN);
        expect(line).not.toContain(basicToken(TOKEN).slice('Basic '.length));
      }
      held.release();
      const mirror = await fetching;

      expect(server.requests.map((r) => r.authorization)).toEqual(
        server.requests.map(() => 'valid'),
      );
      expect(server.requests.some((r) => r.path.includes(TOKEN))).toBe(false);
      const config = readFileSync(join(mirror.repoDir, 'config'), 'utf8');
      expect(config).not.toContain(TOKEN);
      expect(config.toLowerCase()).not.toMatch(/extraheader|\[remote/);
    },
  );

  it('keeps the token out of the error when the server reflects it back', async () => {
    server.failNext(1, { echoAuthorization: true });
    const err = await failure(ensureMirror(runner, request()));
    expect(err).toBeInstanceOf(MirrorError);
    const text = `${String((err as Error).stack)} ${JSON.stringify(err)}`;
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(basicToken(TOKEN).slice('Basic '.length));
    expect((err as Error).message).toContain('[redacted]');
  });

  it.each([
    { case: 'a rejected token', change: { token: 'ghs_wrong' }, reason: 'auth', kind: 'setup' },
    {
      case: 'no token for a private repository',
      change: { token: undefined },
      reason: 'auth',
      kind: 'setup',
    },
    {
      case: 'a repository that does not exist',
      change: { repo: 'gone' },
      reason: 'not-found',
      kind: 'usage',
    },
    {
      case: 'a PR without refs/pull/N/head',
      change: { pullNumber: 99 },
      reason: 'not-found',
      kind: 'usage',
    },
    {
      case: 'a base branch that does not exist',
      change: { baseRef: 'gone' },
      reason: 'not-found',
      kind: 'usage',
    },
  ])('fails permanently on $case', async ({ change, reason, kind }) => {
    const err = await failure(ensureMirror(runner, request(change)));
    expect(err).toBeInstanceOf(MirrorError);
    expect(err).toMatchObject({ reason });
    expect(classify(err)).toBe(kind);
    expect((err as Error).message).not.toContain('ghs_');
  });

  it('fails transiently on a 502 from the git server, and the next fetch succeeds', async () => {
    server.failNext(1, { status: 502 });
    const err = await failure(ensureMirror(runner, request()));
    expect(err).toBeInstanceOf(MirrorError);
    expect(err).toMatchObject({ reason: 'unavailable' });
    expect(classify(err)).toBe('transient');
    expect((await ensureMirror(runner, request())).headSha).toBe(shas.head);
  });
  it('fails transiently when the git server stops answering', async () => {
    server.holdNext();
    const err = await failure(ensureMirror(runner, request({ timeoutMs: 2000 })));
    expect(err).toBeInstanceOf(MirrorError);
    expect(classify(err)).toBe('transient');
    expect(existsSync(`${mirrorDir(cacheDir, 'acme', 'fleet')}.lock`)).toBe(false);
  });
});

describe('one fetch per repository at a time', () => {
  it('runs two jobs of one repository one after the other', async () => {
    const held = server.holdNext();
    const first = ensureMirror(runner, request({ pullNumber: 7 }));
    await held.arrived;
    expect(existsSync(`${mirrorDir(cacheDir, 'acme', 'fleet')}.lock`)).toBe(true);
    const second = ensureMirror(runner, request({ pullNumber: 8 }));
    // Time for the second job to reach the server, were it not waiting for the first.
    await sleep(300);
    held.release();
    const [a, b] = await Promise.all([first, second]);

    expect([a.headSha, b.headSha]).toEqual([shas.head, shas.base]);
    expect(
      server.requests.filter((r) => r.path.endsWith('/info/refs?service=git-upload-pack')),
    ).toHaveLength(2);
    expect(server.maxInFlight()).toBe(1);
  });

  it('lets a job cancelled while waiting for the mirror leave without fetching', async () => {
    const held = server.holdNext();
    const first = ensureMirror(runner, request());
    await held.arrived;
    const controller = new AbortController();
    const second = ensureMirror(runner, request({ pullNumber: 8, signal: controller.signal }));
    controller.abort();
    expect(await failure(second)).toBeInstanceOf(CancelledError);
    const third = ensureMirror(runner, request({ pullNumber: 8 }));
    held.release();
    expect((await first).headSha).toBe(shas.head);
    expect((await third).headSha).toBe(shas.base);
    expect(server.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
    expect(server.maxInFlight()).toBe(1);
  });

  it('stops the fetch when the job is cancelled, and releases the mirror', async () => {
    const held = server.holdNext();
    const controller = new AbortController();
    // The short timeout also bounds git's HTTP helper, which outlives a killed `git fetch`.
    const fetching = ensureMirror(runner, request({ signal: controller.signal, timeoutMs: 2000 }));
    await held.arrived;
    controller.abort();
    expect(await failure(fetching)).toBeInstanceOf(CancelledError);
    expect(server.requests[0]?.endedAt).toBeUndefined();
    expect(existsSync(`${mirrorDir(cacheDir, 'acme', 'fleet')}.lock`)).toBe(false);
    expect((await ensureMirror(runner, request())).headSha).toBe(shas.head);
  });

  it('waits for a lock file held by another live process', async () => {
    const lock = `${mirrorDir(cacheDir, 'acme', 'fleet')}.lock`;
    mkdirSync(join(cacheDir, 'mirrors', 'acme'), { recursive: true });
    writeFileSync(lock, JSON.stringify({ host: hostname(), pid: process.ppid, id: 'other' }));
    const fetching = ensureMirror(runner, request());
    await sleep(300);
    expect(server.requests).toHaveLength(0);
    rmSync(lock);
    expect((await fetching).headSha).toBe(shas.head);
  });

  it.each([
    {
      case: 'a process on this host that has exited',
      holder: () => ({ host: hostname(), pid: exitedPid(), id: 'dead' }),
      ageMs: 0,
    },
    {
      case: 'a holder elsewhere that stopped refreshing it',
      holder: () => ({ host: 'another-host', pid: 1, id: 'gone' }),
      ageMs: 60 * 60_000,
    },
  ])('takes over a lock file left by $case', async ({ holder, ageMs }) => {
    const lock = `${mirrorDir(cacheDir, 'acme', 'fleet')}.lock`;
    mkdirSync(join(cacheDir, 'mirrors', 'acme'), { recursive: true });
    writeFileSync(lock, JSON.stringify(holder()));
    const then = new Date(Date.now() - ageMs);
    utimesSync(lock, then, then);
    expect((await ensureMirror(runner, request())).headSha).toBe(shas.head);
    expect(existsSync(lock)).toBe(false);
  });
});

function exitedPid(): number {
  const { pid } = spawnSync('true');
  if (pid === undefined) throw new Error('could not start `true`');
  return pid;
}

describe('names from webhooks', () => {
  it.each([
    { owner: '..' },
    { owner: '.' },
    { owner: '' },
    { owner: 'acme/../../etc' },
    { repo: 'fleet;rm -rf' },
    { repo: 'a b' },
    { repo: 'x'.repeat(101) },
    { repo: '%2e%2e' },
    { baseRef: 'main..x' },
    { baseRef: '-upload-pack=evil' },
    { baseRef: 'a:refs/heads/b' },
    { baseRef: 'main.lock' },
    { pullNumber: 0 },
    { pullNumber: 1.5 },
  ])('refuses %o before running git', async (change) => {
    expect(await failure(ensureMirror(runner, request(change)))).toBeInstanceOf(UsageError);
    expect(runner.commands).toEqual([]);
    expect(server.requests).toEqual([]);
    expect(existsSync(join(cacheDir, 'mirrors'))).toBe(false);
  });
});
