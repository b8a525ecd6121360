/**
 * Every file of one revision's tree, from the tree objects alone: path, mode, object id,
 * and the size of its content, or that the repository lacks the content (a blobless or
 * damaged clone: the tree names a blob the object store does not hold).
 */
import type { ToolRunner } from '../tool-runner.js';
import type { GitOptions } from './merge-base.js';

export interface TreeFile {
  /** Repository-relative, '/'-separated. */
  path: string;
  /** `100644`, `100755`, `120000` (symlink) or `160000` (a submodule's commit). */
  mode: string;
  oid: string;
  /** Bytes of content; undefined for a submodule, and for a blob the repository lacks. */
  size: number | undefined;
  /** The tree names this blob but the repository does not hold it. */
  lacking: boolean;
}

export async function listTree(
  runner: ToolRunner,
  repoDir: string,
  sha: string,
  options: GitOptions = {},
): Promise<TreeFile[]> {
  // -l makes git look each blob up for its size, and say BAD where it has none.
  const { stdout } = await runner.run(
    'git',
    ['-C', repoDir, 'ls-tree', '-r', '-z', '-l', '--full-tree', '--end-of-options', sha],
    { ...options, maxOutputBytes: 256 * 1024 * 1024 },
  );
  const files: TreeFile[] = [];
  // `<mode> SP <type> SP <oid> SP+ <size> TAB <path> NUL`
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, oid, size] = record.slice(0, tab).split(/ +/);
    if (!mode || !oid || (type !== 'blob' && type !== 'commit')) continue;
    const bytes =
      type === 'blob' && size !== undefined && /^\d+$/.test(size) ? Number(size) : undefined;
    files.push({
      path: record.slice(tab + 1),
      mode,
      oid,
      size: bytes,
      lacking: type === 'blob' && bytes === undefined,
    });
  }
  return files;
}
