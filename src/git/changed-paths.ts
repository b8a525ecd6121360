/**
 * The paths whose content differs between two commits, as git's own tree comparison gives
 * them: added, deleted, modified or changed in type, a rename as the two paths it joins.
 */
import type { ToolRunner } from '../tool-runner.js';
import type { GitOptions } from './merge-base.js';

export async function changedPaths(
  runner: ToolRunner,
  repoDir: string,
  from: string,
  to: string,
  options: GitOptions = {},
): Promise<string[]> {
  const { stdout } = await runner.run(
    'git',
    [
      '-C',
      repoDir,
      'diff-tree',
      '-r',
      '-z',
      '--name-only',
      '--no-renames',
      '--end-of-options',
      from,
      to,
    ],
    { ...options, maxOutputBytes: 64 * 1024 * 1024 },
  );
  return stdout.split('\0').filter((p) => p !== '');
}
