/**
 * Writes files of one git revision into a folder, without touching the repository's work
 * tree, index or refs (a throwaway index file is used); bare repositories work too.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
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

/** Files from which an export is written by two processes at once. */
const SPLIT_FROM = 100;

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
    // Writing the files is most of an export: a big one is split between two checkouts,
    // which read the one index. Each makes a missing folder, and fails if the other made it
    // first, so every folder is made before.
    const halves =
      paths.length < SPLIT_FROM || !paths.every(plainPath)
        ? [paths]
        : [paths.slice(0, paths.length / 2), paths.slice(paths.length / 2)];
    if (halves.length > 1) await makeFolders(dest, paths);
    await Promise.all(
      halves.map((part) =>
        runner.run('git', [...git, 'checkout-index', '-z', '--stdin', `--prefix=${dest}/`], {
          env,
          input: part.map((p) => `${p}\0`).join(''),
        }),
      ),
    );
  } finally {
    await rm(index, { force: true });
  }
}

/** The folders of `paths` under `dest`, each made once, parents first. */
async function makeFolders(dest: string, paths: readonly string[]): Promise<void> {
  const folders = new Set<string>();
  for (const path of paths) {
    for (let dir = posix.dirname(path); dir !== '.' && !folders.has(dir); dir = posix.dirname(dir))
      folders.add(dir);
  }
  const byDepth = [...folders].sort((a, b) => a.split('/').length - b.split('/').length);
  for (const dir of byDepth) await mkdir(join(dest, dir)).catch(ignoreExisting);
}

/** A path git writes as it reads: no '.', '..' or empty part, not absolute (git refuses those). */
function plainPath(path: string): boolean {
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

function ignoreExisting(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
}
