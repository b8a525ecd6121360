/**
 * exportTree writes a revision's files with the real git: a big export is split between two
 * checkouts after its folders are made, and must give the same tree as git has, file for
 * file, symlinks as symlinks, whichever half wrote what.
 */
import { lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportTree, listTree } from '../../src/git/index.js';
import { walkTree } from '../../src/render/workspace/tree.js';
import { loadConfig } from '../../src/config.js';
import { RecordingRunner } from '../support/chart-sources.js';
import { makeRepo, type RepoFiles, type TestRepo } from '../support/repo.js';

const config = loadConfig();
const repos: TestRepo[] = [];
const folders: string[] = [];
afterAll(() => {
  repos.forEach((r) => r.remove());
  folders.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** `count` files spread over nested folders, a symlink among them. */
function manyFiles(count: number): RepoFiles {
  const files: RepoFiles = { 'apps/link.yaml': { symlink: 'a-000/f-0.yaml' } };
  for (let i = 0; i < count; i++) {
    files[`apps/a-${String(i % 97).padStart(3, '0')}/d-${i % 5}/f-${i}.yaml`] = `n: ${i}\n`;
  }
  return files;
}

async function exported(
  files: RepoFiles,
): Promise<{ dest: string; paths: string[]; checkouts: number }> {
  const repo = makeRepo(files, { git: true });
  repos.push(repo);
  const sha = repo.commit('files');
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-export-tree-'));
  folders.push(work);
  const runner = new RecordingRunner({
    toolsBinDir: config.toolsBinDir,
    path: config.path,
    baseEnv: config.toolEnv,
  });
  const listing = await listTree(runner, repo.dir, sha);
  const paths = listing.map((f) => f.path);
  const dest = join(work, 'repository');
  await exportTree(runner, repo.dir, sha, dest, work, paths);
  const checkouts = runner.calls.filter((c) => c.includes('checkout-index')).length;
  return { dest, paths, checkouts };
}

describe('exportTree', () => {
  it.each([
    ['one checkout', 50, 1],
    ['two checkouts', 900, 2],
  ])('writes every file of the revision as git has it (%s)', async (_case, count, processes) => {
    const files = manyFiles(count);
    const { dest, paths, checkouts } = await exported(files);
    expect(checkouts).toBe(processes);
    expect(paths).toHaveLength(count + 1);
    const written = (await walkTree(dest)).filter((e) => e.kind !== 'dir');
    expect(written.map((e) => e.path).sort()).toEqual([...paths].sort());
    for (const [path, content] of Object.entries(files)) {
      if (typeof content === 'string') {
        expect(readFileSync(join(dest, path), 'utf8')).toBe(content);
      } else {
        expect(lstatSync(join(dest, path)).isSymbolicLink()).toBe(true);
        expect(readlinkSync(join(dest, path))).toBe(content.symlink);
      }
    }
  });
});
