/**
 * The repository an engine renders, written into its workspace: the folder as it is on disk
 * or files of one git revision's tree, never a `.git`. The user's folder is only read.
 * A revision's files whose content the repository lacks (a blobless or damaged clone) are
 * left out and named, so that only a build that reads one fails.
 */
import { mkdir } from 'node:fs/promises';
import { join, posix, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { exportTree, listTree, resolveRevision, type TreeFile } from '../../git/index.js';
import { ToolError, type ToolRunner } from '../../tool-runner.js';
import type { RenderRequest } from '../engine.js';
import { copyTree, isDirectory, TreeLimitError, type TreeLimits } from './tree.js';

export interface MaterializedRepository {
  root: string;
  /** Repository-relative files of the revision whose content the repository lacks. */
  lacking: ReadonlySet<string>;
}

/**
 * Picks the files of a revision to write out of its listing (path, mode, object id, size,
 * whether the clone lacks it); every file when there is none.
 */
export type FileSelector = (listing: TreeFile[], sha: string) => Promise<readonly TreeFile[]>;

/** Writes the whole repository of `request` to `workspace/repository` and returns that path. */
export async function materializeRepository(
  runner: ToolRunner,
  request: RenderRequest,
  workspace: string,
  limits: TreeLimits,
): Promise<string> {
  return (await materializeFiles(runner, request, workspace, limits)).root;
}

/**
 * Writes the files `select` picks of `request`'s revision (all of a folder on disk) to
 * `workspace/repository`, and names the revision's files the repository lacks.
 */
export async function materializeFiles(
  runner: ToolRunner,
  request: RenderRequest,
  workspace: string,
  limits: TreeLimits,
  select?: FileSelector,
): Promise<MaterializedRepository> {
  const dest = join(workspace, 'repository');
  const repoDir = resolve(request.repoDir);
  if (!(await isDirectory(repoDir)))
    throw new UsageError(`repository '${request.repoDir}' is not a folder`);
  if (request.rev === undefined) {
    await copyTree(repoDir, dest, { mode: 'copy', limits });
    return { root: dest, lacking: new Set() };
  }
  const sha = await revision(runner, repoDir, request.rev, request.repoDir);
  const listing = await listTree(runner, repoDir, sha).catch((err: unknown) => {
    // git said no (an object that is not there); a timeout stays what it is.
    if (!(err instanceof ToolError) || err.exitCode === undefined) throw err;
    throw new UsageError(`cannot read revision '${request.rev}' in '${request.repoDir}'`);
  });
  const lacking = new Set(listing.filter((f) => f.lacking).map((f) => f.path));
  const files = select ? await select(listing, sha) : listing;
  const paths = files.filter((f) => !f.lacking && f.mode !== '160000').map((f) => f.path);
  if (paths.length > limits.maxFiles)
    throw new TreeLimitError(`source has more than ${limits.maxFiles} files`);
  await exportTree(runner, repoDir, sha, dest, workspace, paths);
  await makeFolders(
    dest,
    files.filter((f) => f.lacking),
  );
  return { root: dest, lacking };
}

/**
 * The folders of files left out for lack of content, so that the tree has the shape of the
 * revision: a build in such a folder fails on the file, not on a missing folder.
 */
async function makeFolders(dest: string, lacking: readonly TreeFile[]): Promise<void> {
  for (const file of lacking) {
    const dir = posix.normalize(posix.dirname(file.path));
    if (dir === '..' || dir.startsWith('../') || posix.isAbsolute(dir)) continue;
    await mkdir(join(dest, dir), { recursive: true });
  }
}

async function revision(
  runner: ToolRunner,
  repoDir: string,
  rev: string,
  shown: string,
): Promise<string> {
  // A full object name is what it is; listing its tree tells whether it exists.
  if (/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(rev)) return rev;
  return resolveRevision(runner, repoDir, rev).catch((err: unknown) => {
    // A revision git cannot resolve is the caller's input, not a tool failure.
    if (!(err instanceof ToolError)) throw err;
    const reason = err.stderrTail.trim().split('\n').at(-1) ?? '';
    throw new UsageError(
      `cannot resolve revision '${rev}' in '${shown}'${reason ? `: ${reason}` : ''}`,
    );
  });
}
