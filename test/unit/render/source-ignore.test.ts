/**
 * SourceIgnore.mayIgnore is the quick question a render asks of every file before it takes
 * the repository's export as its artifact: it must say "may" for every path ignores() would
 * leave out, whatever the patterns (negations, folder scopes, defaults). Generated trees
 * and pattern files, compared with ignores() path by path.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SourceIgnore } from '../../../src/render/flux/source-ignore.js';
import { walkTree } from '../../../src/render/workspace/tree.js';

const NAMES = ['apps', 'web', 'docs', 'logo.png', 'a.yaml', 'b.yml', '.sops.yaml', '.github'];
const PATTERNS = [
  '*.png',
  '!logo.png',
  '/apps/',
  '!/apps/web/',
  'docs',
  '*.yml',
  '!b.yml',
  'web/a.yaml',
  '**/.sops.yaml',
  '/*',
  '!/apps',
];

const path = fc
  .array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.join('/'));

describe('SourceIgnore.mayIgnore', () => {
  it('says "may" for every path ignores() leaves out', async () => {
    let ignored = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(path, { minLength: 1, maxLength: 12 }),
        fc.dictionary(
          fc.constantFrom('', 'apps', 'apps/web', 'docs'),
          fc.array(fc.constantFrom(...PATTERNS), { maxLength: 4 }),
          { maxKeys: 3 },
        ),
        fc.option(fc.array(fc.constantFrom(...PATTERNS), { maxLength: 3 }), { nil: undefined }),
        async (files, ignoreFiles, spec) => {
          const root = mkdtempSync(join(tmpdir(), 'fluxlens-source-ignore-'));
          try {
            for (const file of files) {
              const target = join(root, file, 'f.txt');
              mkdirSync(dirname(target), { recursive: true });
              writeFileSync(target, '');
            }
            for (const [dir, patterns] of Object.entries(ignoreFiles)) {
              mkdirSync(join(root, dir), { recursive: true });
              writeFileSync(join(root, dir, '.sourceignore'), `${patterns.join('\n')}\n`);
            }
            const entries = await walkTree(root);
            const rules = await SourceIgnore.load(root, spec?.join('\n'), entries);
            for (const e of entries) {
              const isDir = e.kind === 'dir';
              if (!rules.ignores(e.path, isDir)) continue;
              ignored++;
              expect(rules.mayIgnore(e.path, isDir)).toBe(true);
            }
          } finally {
            rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 150, seed: 20261202 },
    );
    // The property held on paths that were left out, not only on trees that kept all.
    expect(ignored).toBeGreaterThan(100);
  });

  it('says "no" for a tree none of whose paths a pattern names', async () => {
    const root = mkdtempSync(join(tmpdir(), 'fluxlens-source-ignore-'));
    try {
      mkdirSync(join(root, 'apps', 'web'), { recursive: true });
      writeFileSync(join(root, 'apps', 'web', 'deploy.yaml'), '');
      const rules = await SourceIgnore.load(root);
      expect(rules.mayIgnore('apps/web/deploy.yaml', false)).toBe(false);
      expect(rules.mayIgnore('apps/web', true)).toBe(false);
      expect(rules.mayIgnore('apps/web/logo.png', false)).toBe(true);
      expect(rules.mayIgnore('.github', true)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
