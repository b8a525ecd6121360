/**
 * Reads one file of a git revision without a work tree, so what is read is what was
 * committed, never what happens to be on disk.
 */
import { UsageError } from '../errors.js';
import type { ToolRunner } from '../tool-runner.js';
import type { GitOptions } from './merge-base.js';

export interface TreeEntry {
  /** Git file mode: `100644`, `100755`, `120000` (symlink), `040000` (tree), `160000`. */
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  oid: string;
}

/** The entry at `path` (repository-relative, `.` for the root) in commit `sha`, if any. */
export async function treeEntry(
  runner: ToolRunner,
  repoDir: string,
  sha: string,
  path: string,
  options: GitOptions = {},
): Promise<TreeEntry | undefined> {
  if (path === '.' || path === '') {
    const { stdout } = await runner.run(
      'git',
      ['-C', repoDir, 'rev-parse', `${sha}^{tree}`],
      options,
    );
    return { mode: '040000', type: 'tree', oid: stdout.trim() };
  }
  const { stdout } = await runner.run(
    'git',
    ['-C', repoDir, 'ls-tree', '-z', '--full-tree', sha, '--', path],
    options,
  );
  // `<mode> SP <type> SP <oid> TAB <path> NUL`; ls-tree matches the exact path only.
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0 || record.slice(tab + 1) !== path) continue;
    const [mode, type, oid] = record.slice(0, tab).split(' ');
    if (mode && oid && (type === 'blob' || type === 'tree' || type === 'commit')) {
      return { mode, type, oid };
    }
  }
  return undefined;
}

/**
 * The text of a regular file at `path` in commit `sha`; undefined when there is none.
 * A symlink or folder in its place, or a file over `maxBytes`, is a UsageError.
 */
export async function readFileAtRevision(
  runner: ToolRunner,
  repoDir: string,
  sha: string,
  path: string,
  options: GitOptions & { maxBytes: number },
): Promise<string | undefined> {
  const git = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};
  const entry = await treeEntry(runner, repoDir, sha, path, git);
  if (!entry) return undefined;
  if (entry.type !== 'blob' || (entry.mode !== '100644' && entry.mode !== '100755')) {
    throw new UsageError(`${path} at ${sha.slice(0, 12)} is not a regular file`);
  }
  const size = Number(
    (await runner.run('git', ['-C', repoDir, 'cat-file', '-s', entry.oid], git)).stdout.trim(),
  );
  if (!(size <= options.maxBytes)) {
    throw new UsageError(
      `${path} at ${sha.slice(0, 12)} is ${String(size)} bytes, over the ${String(options.maxBytes)} byte limit`,
    );
  }
  const { stdout } = await runner.run('git', ['-C', repoDir, 'cat-file', 'blob', entry.oid], {
    ...git,
    maxOutputBytes: options.maxBytes + 1,
  });
  return stdout;
}
