/**
 * What one kustomize build reads, and its private copy of only that: the files of every
 * folder it visits and every file it references, no symlink on the way, or no answer when
 * it could read elsewhere (then the whole tree is its copy).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildInputSet } from '../../../src/render/kustomize/index.js';
import { linkPaths } from '../../../src/render/workspace/tree.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string | { symlink: string }>): string {
  const root = mkdtempSync(join(tmpdir(), 'fluxlens-inputs-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    if (typeof content === 'string') writeFileSync(join(root, path), content);
    else symlinkSync(content.symlink, join(root, path));
  }
  return root;
}

const APP = {
  'apps/web/kustomization.yaml':
    'resources: [deploy.yaml, ../../base]\npatches:\n  - path: patch.yaml\n',
  'apps/web/deploy.yaml': 'kind: Deployment\n',
  'apps/web/patch.yaml': 'kind: Deployment\n',
  'apps/web/unused/extra.yaml': 'kind: Service\n',
  'base/kustomization.yaml': 'resources: [ns.yaml]\n',
  'base/ns.yaml': 'kind: Namespace\n',
  'docs/guide.md': '# guide\n',
};
const top = { resources: ['deploy.yaml', '../../base'], patches: [{ path: 'patch.yaml' }] };

describe("a kustomize build's inputs", () => {
  it('are the files of the folders it visits and the files it references', async () => {
    const root = tree(APP);
    const set = await buildInputSet(root, join(root, 'apps/web'), top, null);
    expect(set?.files.map(([path]) => path)).toEqual([
      'apps/web/deploy.yaml',
      'apps/web/kustomization.yaml',
      'apps/web/patch.yaml',
      'base/kustomization.yaml',
      'base/ns.yaml',
    ]);
    expect(set?.dirs).toEqual(['apps/web', 'base']);
    expect(set?.direct).toBe(true);
  });

  it('say when a symlink is on the way, so the build copies the whole tree', async () => {
    const root = tree({ ...APP, 'apps/web/deploy.yaml': { symlink: '../../base/ns.yaml' } });
    expect((await buildInputSet(root, join(root, 'apps/web'), top, null))?.direct).toBe(false);
  });

  it('are unknown when the build reads an OpenAPI schema, which no walk follows', async () => {
    const root = tree(APP);
    const withSchema = { ...top, openapi: { path: 'schema.json' } };
    expect(await buildInputSet(root, join(root, 'apps/web'), withSchema, null)).toBeUndefined();
  });

  it('make a private copy of only those files, folders included', async () => {
    const root = tree(APP);
    const set = await buildInputSet(root, join(root, 'apps/web'), top, null);
    const copy = join(mkdtempSync(join(tmpdir(), 'fluxlens-copy-')), 'copy');
    dirs.push(dirname(copy));
    await linkPaths(root, copy, { files: set!.files.map(([p]) => p), dirs: set!.dirs });
    expect(existsSync(join(copy, 'base/ns.yaml'))).toBe(true);
    expect(existsSync(join(copy, 'apps/web/patch.yaml'))).toBe(true);
    expect(existsSync(join(copy, 'apps/web/unused'))).toBe(false);
    expect(existsSync(join(copy, 'docs'))).toBe(false);
  });
});
