/**
 * One bare mirror per GitHub repository under the cache folder, brought up to date with
 * the two refs a review reads: the PR's base branch and refs/pull/N/head (a review without
 * a PR: a base branch and a head branch or commit). Objects are
 * fetched in full (no partial clone), so every later read of the mirror is offline.
 */
import { createHash } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { CancelledError, SetupError, UsageError } from '../errors.js';
import { isOwnerName, isRepositoryName } from '../model/index.js';
import type { ToolRunner } from '../tool-runner.js';
import { fetchFailure } from './mirror-error.js';
import { withRepositoryLock } from './repository-lock.js';

export interface MirrorRequest {
  /** Holds `mirrors/<owner>/<repo>.git`. */
  cacheDir: string;
  /** Where repositories are served: `https://github.com`, or a test server. */
  gitUrl: string;
  owner: string;
  repo: string;
  /** An installation token; absent for public repositories. Sent only as an HTTP header. */
  token?: string | undefined;
  /** The PR's base branch name; absent when one revision is read (its head is the base). */
  baseRef?: string;
  /** The PR whose head is fetched (refs/pull/N/head), or else `headRef`. */
  pullNumber?: number;
  /** A branch name or a commit SHA to review as the head, for a review without a PR. */
  headRef?: string;
  signal?: AbortSignal | undefined;
  /** Bound on each git command, the fetch above all. */
  timeoutMs: number;
}

export interface Mirror {
  /** The bare repository: every reader in git/ takes it as its repoDir. */
  repoDir: string;
  /**
   * Tip of the base branch (the merge-base with the head is the caller's to compute); the
   * head's when the request names no base.
   */
  baseSha: string;
  /** Tip of refs/pull/N/head (or of the head branch, or the head commit). */
  headSha: string;
}

/**
 * Creates the mirror on first use and fetches exactly the base branch and the PR head
 * into it, one job at a time per repository. Failures are MirrorErrors that say whether
 * a retry can help; a cancelled signal gives a CancelledError.
 */
export async function ensureMirror(runner: ToolRunner, request: MirrorRequest): Promise<Mirror> {
  const url = repositoryUrl(request);
  const repoDir = mirrorDir(request.cacheDir, request.owner, request.repo);
  const { signal } = request;
  try {
    await mkdir(dirname(repoDir), { recursive: true });
    return await withRepositoryLock(
      repoDir,
      async () => {
        await initMirror(runner, repoDir, request);
        await removeGitLocks(repoDir, request);
        await fetchPullRefs(runner, repoDir, url, request);
        return { repoDir, ...(await tips(runner, repoDir, request)) };
      },
      { signal },
    );
  } catch (err) {
    if (signal?.aborted && !(err instanceof CancelledError)) {
      throw new CancelledError('mirror fetch cancelled', { cause: err });
    }
    throw err;
  }
}

/**
 * `<cacheDir>/mirrors/<owner>/<repo>.git`, lower-cased as GitHub compares names. Names are
 * checked where they enter, but this path must stay inside the cache whatever it is given:
 * a name that is not GitHub's becomes a folder of safe characters and a hash of the name,
 * so `..`, `a/b` or `%2e%2e` can neither climb out nor meet another repository's mirror.
 */
export function mirrorDir(cacheDir: string, owner: string, repo: string): string {
  const root = join(resolve(cacheDir), 'mirrors');
  const dir = join(
    root,
    safeSegment(owner, isOwnerName(owner)),
    `${safeSegment(repo, isRepositoryName(repo))}.git`,
  );
  if (dirname(dirname(dir)) !== root) throw new UsageError('mirror path outside the cache');
  return dir;
}

function safeSegment(name: string, valid: boolean): string {
  const lower = name.toLowerCase();
  if (valid) return lower;
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 16);
  return `_${lower.replace(/[^a-z0-9_-]/g, '_').slice(0, 40)}-${hash}`;
}

/** Names become URL segments here, so one that is not GitHub's is refused before git runs. */
function repositoryUrl(request: MirrorRequest): string {
  if (!isOwnerName(request.owner) || !isRepositoryName(request.repo)) {
    const name = `${request.owner}/${request.repo}`.slice(0, 200);
    throw new UsageError(`'${name}' is not a GitHub owner and repository name`);
  }
  if (request.baseRef !== undefined && !isBranchName(request.baseRef)) {
    throw new UsageError(`'${request.baseRef.slice(0, 255)}' is not a branch name`);
  }
  headOf(request);
  let base: URL;
  try {
    base = new URL(request.gitUrl);
  } catch {
    throw new SetupError(`git URL '${request.gitUrl}' is not a URL`);
  }
  // Credentials in the URL would reach argv and git's messages; the token has its own way.
  if (!['http:', 'https:', 'git:'].includes(base.protocol) || base.username || base.password) {
    throw new SetupError('the git URL must be http(s):// or git:// without credentials');
  }
  return `${base.href.replace(/\/+$/, '')}/${request.owner}/${request.repo}.git`;
}

const COMMIT_SHA = /^[0-9a-f]{40}$/;

/** The base branch's ref, when the request names one. */
function baseRefs(request: MirrorRequest): string[] {
  return request.baseRef === undefined ? [] : [`refs/heads/${request.baseRef}`];
}

/**
 * Where the head is fetched from and kept: the PR's head ref, a branch, or a commit (kept
 * under a ref of its own, so the mirror's gc never drops it).
 */
function headOf(request: MirrorRequest): { remote: string; local: string; what: string } {
  const { pullNumber, headRef } = request;
  if (pullNumber !== undefined && headRef === undefined) {
    if (!Number.isSafeInteger(pullNumber) || pullNumber < 1) {
      throw new UsageError(`${String(pullNumber)} is not a pull request number`);
    }
    const ref = `refs/pull/${String(pullNumber)}/head`;
    return { remote: ref, local: ref, what: `pull ${String(pullNumber)}` };
  }
  if (headRef === undefined || pullNumber !== undefined) {
    throw new UsageError('a mirror fetch names either a pull request or a head, not both');
  }
  if (COMMIT_SHA.test(headRef)) {
    return { remote: headRef, local: `refs/fluxlens/commits/${headRef}`, what: headRef };
  }
  if (!isBranchName(headRef)) {
    throw new UsageError(`'${headRef.slice(0, 255)}' is not a branch name or a commit SHA`);
  }
  const ref = `refs/heads/${headRef}`;
  return { remote: ref, local: ref, what: headRef };
}

/** git check-ref-format's rules for a branch, plus no leading `-` (it would read as a flag). */
function isBranchName(name: string): boolean {
  if (name.length === 0 || name.length > 255 || name === '@' || name.startsWith('-')) {
    return false;
  }
  if ([...name].some((ch) => ch <= ' ' || ch === '\x7f')) return false;
  if (/[~^:?*[\\]|\.\.|@\{|\/\/|\.$/.test(name)) return false;
  return name
    .split('/')
    .every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

async function initMirror(runner: ToolRunner, repoDir: string, request: MirrorRequest) {
  // `git init` is idempotent, so a mirror left half-made by a crash is completed here.
  if (await stat(join(repoDir, 'HEAD')).catch(() => undefined)) return;
  await runner.run('git', ['init', '--quiet', '--bare', repoDir], gitOptions(request));
}

/**
 * The lock files a fetch takes inside the mirror. git removes them when it exits or is
 * stopped, but not when it is SIGKILLed (the runner's last resort, or an OOM kill), and
 * every later fetch would then fail. Holding the mirror's lock, nothing else runs git
 * writes here, so any that exist are left over.
 */
async function removeGitLocks(repoDir: string, request: MirrorRequest): Promise<void> {
  const refs = [...baseRefs(request), headOf(request).local];
  const files = [...refs, 'packed-refs', 'shallow', 'config', 'HEAD'];
  await Promise.all(files.map((file) => rm(join(repoDir, `${file}.lock`), { force: true })));
}

async function fetchPullRefs(
  runner: ToolRunner,
  repoDir: string,
  url: string,
  request: MirrorRequest,
): Promise<void> {
  const head = headOf(request);
  const header = request.token ? authorizationHeader(request.token) : undefined;
  try {
    await runner.run(
      'git',
      [
        // A credential helper of the host could answer for github.com with other credentials.
        '-c',
        'credential.helper=',
        // An automatic gc runs inside our lock rather than behind it.
        '-c',
        'gc.autoDetach=false',
        ...stallLimit(request.timeoutMs),
        '--git-dir',
        repoDir,
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        '--no-recurse-submodules',
        '--end-of-options',
        url,
        ...baseRefs(request).map((base) => `+${base}:${base}`),
        `+${head.remote}:${head.local}`,
      ],
      { ...gitOptions(request), env: fetchEnv(header) },
    );
  } catch (err) {
    const secrets = request.token ? [request.token, header ?? ''] : [];
    const refs = [request.baseRef, head.what].filter((ref) => ref !== undefined).join(', ');
    const what = `fetching ${request.owner}/${request.repo} (${refs})`;
    throw fetchFailure(err, what, secrets) ?? err;
  }
}

/**
 * A transfer that stalls is cut by git's HTTP helper itself. The runner's timeout and
 * cancel stop `git fetch`, but not the `git remote-http` child it leaves behind, which
 * holds the output pipe open and would keep a hung connection (and our lock) forever.
 */
function stallLimit(timeoutMs: number): string[] {
  const seconds = Math.min(MAX_STALL_SECONDS, Math.max(1, Math.ceil(timeoutMs / 1000)));
  return ['-c', 'http.lowSpeedLimit=1', '-c', `http.lowSpeedTime=${String(seconds)}`];
}

const MAX_STALL_SECONDS = 60;

/** How GitHub takes an installation token over git's HTTP transport. */
function authorizationHeader(token: string): string {
  return `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
}

/**
 * The header travels in git's environment config (git >= 2.31): argv is world-readable in
 * `ps`, a process's environment is not, and nothing is written to the mirror's config.
 * git never prompts: no terminal, and an askpass that answers nothing.
 */
function fetchEnv(header: string | undefined): Record<string, string> {
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true' };
  if (header === undefined) return env;
  return {
    ...env,
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: ${header}`,
  };
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

async function tips(
  runner: ToolRunner,
  repoDir: string,
  request: MirrorRequest,
): Promise<{ baseSha: string; headSha: string }> {
  const { stdout } = await runner.run(
    'git',
    [
      '--git-dir',
      repoDir,
      'rev-parse',
      `${baseRefs(request)[0] ?? headOf(request).local}^{commit}`,
      `${headOf(request).local}^{commit}`,
    ],
    gitOptions(request),
  );
  const [baseSha, headSha] = stdout.trim().split('\n');
  if (!baseSha || !headSha || !OBJECT_ID.test(baseSha) || !OBJECT_ID.test(headSha)) {
    throw new Error(`git rev-parse gave no commit ids for ${repoDir}`);
  }
  return { baseSha, headSha };
}

function gitOptions(request: MirrorRequest): { timeoutMs: number; signal?: AbortSignal } {
  return { timeoutMs: request.timeoutMs, ...(request.signal ? { signal: request.signal } : {}) };
}
