/**
 * Writes files of one git revision into a folder, without touching the repository's work
 * tree, index or refs (a throwaway index file is used); bare repositories work too.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolRunner } from '../tool-runner.js';

export async function resolveRevision(
  runner: ToolRunner,
  repoDir: string,
  rev: string,
): Promise<string> {
  const { stdout } = await runner.run('git', [
    '-C',
    repoDir,
    'rev-parse',
    '--verify',
    '--end-of-options',
    `${rev}^{commit}`,
  ]);
  return stdout.trim();
}

/**
 * Writes `paths` (repository-relative files of the revision, see listTree) under `dest`,
 * symlinks as symlinks. Only those: a file the repository lacks the content of must not be
 * among them.
 */
export async function exportTree(
  runner: ToolRunner,
  repoDir: string,
  sha: string,
  dest: string,
  scratch: string,
  paths: readonly string[],
): Promise<void> {
  await mkdir(dest, { recursive: true });
  if (paths.length === 0) return;
  const index = join(scratch, `index-${sha}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    // An explicit work tree lets a bare repository (the worker's mirror) check files out.
    const git = ['-C', repoDir, `--work-tree=${dest}`];
    await runner.run('git', [...git, 'read-tree', sha], { env });
    await runner.run('git', [...git, 'checkout-index', '-z', '--stdin', `--prefix=${dest}/`], {
      env,
      input: paths.map((p) => `${p}\0`).join(''),
    });
  } finally {
    await rm(index, { force: true });
  }
}
