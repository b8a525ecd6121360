/**
 * Which two commits a diff compares: the head, and the merge-base of the head with the
 * base branch (what the PR would change if merged, as GitHub shows it). Revisions git
 * cannot resolve and histories without a common ancestor are the caller's input errors.
 */
import { RevisionError } from '../errors.js';
import { ToolError, type ToolRunner } from '../tool-runner.js';
import { resolveRevision } from './export-tree.js';

export interface Revision {
  /** What was asked for (`main`, `HEAD`, a SHA) or, for a default base, the branch used. */
  rev: string;
  sha: string;
}

/** Where the base branch came from: the caller, or the upstream default-branch lookup. */
export type BaseSource = 'argument' | 'origin/HEAD' | 'fallback';

/** Bounds for the git commands run here. */
export interface GitOptions {
  timeoutMs?: number;
}

export interface ResolvedRevisions {
  head: Revision;
  /** `sha` is the merge-base of `rev` and the head. */
  base: Revision;
  baseSource: BaseSource;
}

function lastLine(err: ToolError): string {
  return err.stderrTail.trim().split('\n').at(-1) ?? '';
}

/** The commit SHA of `rev`, or a RevisionError when git cannot resolve it. */
export async function resolveCommit(
  runner: ToolRunner,
  repoDir: string,
  rev: string,
): Promise<string> {
  try {
    return await resolveRevision(runner, repoDir, rev);
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    const reason = lastLine(err);
    throw new RevisionError(
      'bad-revision',
      `cannot resolve revision '${rev}' in '${repoDir}'${reason ? `: ${reason}` : ''}`,
      'unknown',
    );
  }
}

/** The best common ancestor of two commits (given as SHAs). */
export async function mergeBase(
  runner: ToolRunner,
  repoDir: string,
  a: string,
  b: string,
  options: GitOptions = {},
): Promise<string> {
  try {
    const { stdout } = await runner.run('git', ['-C', repoDir, 'merge-base', a, b], options);
    return stdout.trim();
  } catch (err) {
    // git merge-base exits 1, saying nothing, when the histories share no commit.
    if (err instanceof ToolError && err.exitCode === 1) {
      const pair = `${a.slice(0, 12)} and ${b.slice(0, 12)}`;
      // CI checkouts are often shallow: the common ancestor exists but was not fetched.
      if (await isShallow(runner, repoDir, options)) {
        throw new RevisionError(
          'bad-revision',
          `${pair} have no common ancestor in this shallow clone`,
          'shallow-clone',
        );
      }
      throw new RevisionError(
        'bad-revision',
        `${pair} have no common ancestor`,
        'no-common-ancestor',
      );
    }
    throw err;
  }
}

async function isShallow(
  runner: ToolRunner,
  repoDir: string,
  options: GitOptions,
): Promise<boolean> {
  const { stdout } = await runner.run(
    'git',
    ['-C', repoDir, 'rev-parse', '--is-shallow-repository'],
    options,
  );
  return stdout.trim() === 'true';
}

async function refExists(
  runner: ToolRunner,
  repoDir: string,
  ref: string,
  options: GitOptions,
): Promise<boolean> {
  try {
    await runner.run(
      'git',
      ['-C', repoDir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`],
      options,
    );
    return true;
  } catch (err) {
    if (err instanceof ToolError) return false;
    throw err;
  }
}

/** Branches tried, in order, when origin/HEAD does not name the default branch. */
const FALLBACK_BRANCHES: ReadonlyArray<{ ref: string; rev: string }> = [
  { ref: 'refs/remotes/origin/main', rev: 'origin/main' },
  { ref: 'refs/remotes/origin/master', rev: 'origin/master' },
  { ref: 'refs/heads/main', rev: 'main' },
  { ref: 'refs/heads/master', rev: 'master' },
];

/**
 * The upstream default branch: origin/HEAD's target (what `git clone` records), else the
 * first of origin/main, origin/master, main, master that exists.
 */
export async function defaultBranch(
  runner: ToolRunner,
  repoDir: string,
  options: GitOptions = {},
): Promise<{ rev: string; ref: string; source: Exclude<BaseSource, 'argument'> }> {
  const symbolic = await runner
    .run('git', ['-C', repoDir, 'symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD'], options)
    .then((r) => r.stdout.trim())
    .catch((err: unknown) => {
      if (err instanceof ToolError) return '';
      throw err;
    });
  const prefix = 'refs/remotes/';
  if (symbolic.startsWith(prefix) && (await refExists(runner, repoDir, symbolic, options))) {
    return { rev: symbolic.slice(prefix.length), ref: symbolic, source: 'origin/HEAD' };
  }
  for (const candidate of FALLBACK_BRANCHES) {
    if (await refExists(runner, repoDir, candidate.ref, options)) {
      return { ...candidate, source: 'fallback' };
    }
  }
  throw new RevisionError(
    'no-default-branch',
    'cannot find the default branch (no origin/HEAD, origin/main, origin/master, main or master)',
    'no-default-branch',
  );
}

/**
 * Resolves the head (default `HEAD`) and the base: the merge-base of the head with
 * `base` when given, else with the upstream default branch.
 */
export async function resolveRevisions(
  runner: ToolRunner,
  repoDir: string,
  request: { base?: string | undefined; head?: string | undefined },
  options: GitOptions = {},
): Promise<ResolvedRevisions> {
  const headRev = request.head ?? 'HEAD';
  // Side by side, each a git process; a head git cannot resolve is named first.
  const [head, tip] = await Promise.allSettled([
    resolveCommit(runner, repoDir, headRev),
    baseBranchTip(runner, repoDir, request.base, options),
  ]);
  if (head.status === 'rejected') throw head.reason;
  if (tip.status === 'rejected') throw tip.reason;
  const headSha = head.value;
  const { rev: baseRev, source: baseSource } = tip.value;
  const baseSha = await mergeBase(runner, repoDir, tip.value.sha, headSha, options);
  return { head: { rev: headRev, sha: headSha }, base: { rev: baseRev, sha: baseSha }, baseSource };
}

/** The base branch's tip: `base` when given, else the upstream default branch's. */
async function baseBranchTip(
  runner: ToolRunner,
  repoDir: string,
  base: string | undefined,
  options: GitOptions,
): Promise<{ rev: string; source: BaseSource; sha: string }> {
  if (base !== undefined) {
    return { rev: base, source: 'argument', sha: await resolveCommit(runner, repoDir, base) };
  }
  const found = await defaultBranch(runner, repoDir, options);
  return {
    rev: found.rev,
    source: found.source,
    sha: await resolveCommit(runner, repoDir, found.ref),
  };
}
