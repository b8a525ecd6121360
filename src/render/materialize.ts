/**
 * The repository an engine renders, written into its workspace: the folder as it is on disk
 * or one git revision's tree, never a `.git`. The user's folder is only read.
 */
import { join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { exportTree, resolveRevision } from '../git/index.js';
import { ToolError, type ToolRunner } from '../tool-runner.js';
import type { RenderRequest } from './engine.js';
import { copyTree, isDirectory, type TreeLimits } from './tree.js';

/** Writes the repository of `request` to `workspace/repository` and returns that path. */
export async function materializeRepository(
  runner: ToolRunner,
  request: RenderRequest,
  workspace: string,
  limits: TreeLimits,
): Promise<string> {
  const dest = join(workspace, 'repository');
  const repoDir = resolve(request.repoDir);
  if (!(await isDirectory(repoDir)))
    throw new UsageError(`repository '${request.repoDir}' is not a folder`);
  if (request.rev === undefined) {
    await copyTree(repoDir, dest, { mode: 'copy', limits });
  } else {
    const rev = request.rev;
    const sha = await resolveRevision(runner, repoDir, rev).catch((err: unknown) => {
      // A revision git cannot resolve is the caller's input, not a tool failure.
      if (!(err instanceof ToolError)) throw err;
      const reason = err.stderrTail.trim().split('\n').at(-1) ?? '';
      throw new UsageError(
        `cannot resolve revision '${rev}' in '${request.repoDir}'${reason ? `: ${reason}` : ''}`,
      );
    });
    await exportTree(runner, repoDir, sha, dest, workspace);
  }
  return dest;
}
