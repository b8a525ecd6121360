/**
 * A copy whose workspace is removed under it, as a cancelled render's engine does while a
 * build is still copying: the copy fails at its next folder and never makes the workspace
 * again, so nothing is left in the temporary folder.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyTree } from '../../../src/render/workspace/tree.js';

const source = mkdtempSync(join(tmpdir(), 'fluxlens-tree-source-'));
afterAll(() => rmSync(source, { recursive: true, force: true }));
for (const folder of ['a', 'b', 'c']) {
  mkdirSync(join(source, folder, 'deeper'), { recursive: true });
  writeFileSync(join(source, folder, 'deeper', 'cm.yaml'), 'kind: ConfigMap\n');
}

describe('a copy whose workspace is removed while it copies', () => {
  it.each(['link', 'copy'] as const)('stops and leaves nothing (%s mode)', async (mode) => {
    const workspace = mkdtempSync(join(tmpdir(), 'fluxlens-tree-workspace-'));
    let removed = false;
    // The walk asks about each folder before it makes it: the second one removes the workspace.
    let folders = 0;
    const keep = (_: string, isDir: boolean): boolean => {
      if (isDir && ++folders === 2) {
        rmSync(workspace, { recursive: true, force: true });
        removed = true;
      }
      return true;
    };
    await expect(copyTree(source, join(workspace, 'copy'), { mode, keep })).rejects.toThrow(
      /ENOENT/,
    );
    expect(removed).toBe(true);
    expect(existsSync(workspace)).toBe(false);
  });

  it('copies every folder, and the folders a kept file needs, when nothing is removed', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'fluxlens-tree-workspace-'));
    try {
      const keep = (rel: string, isDir: boolean) => !isDir || rel === 'a';
      await copyTree(source, join(workspace, 'copy'), { mode: 'copy', keep });
      for (const folder of ['a', 'b', 'c'])
        expect(existsSync(join(workspace, 'copy', folder, 'deeper', 'cm.yaml'))).toBe(true);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
