/**
 * DESIGN.md's import rules hold for src/ and workers/, and the check that enforces them
 * catches each kind of breach: an upward import, a deep import, a folder cycle, a file
 * cycle (also one closed by a type-only import).
 */
import { describe, expect, it } from 'vitest';
import { checkLayering, readSourceTree } from '../support/layering.js';
import { projectRoot } from '../support/paths.js';

describe('the layering of src/', () => {
  it('follows DESIGN.md: allowed imports only, folders entered through index.ts, no cycles', () => {
    const tree = readSourceTree(projectRoot, ['src', 'workers']);
    expect(tree.size).toBeGreaterThan(100);
    expect(checkLayering(tree)).toEqual([]);
  });
});

describe('the layering check', () => {
  const base: Record<string, string> = {
    'src/model/index.ts': "export * from './render.js';\n",
    'src/model/render.ts': 'export type Manifest = Record<string, unknown>;\n',
    'src/render/index.ts': "export { build } from './build.js';\n",
    'src/render/build.ts':
      "import type { Manifest } from '../model/index.js';\nexport const build = (m: Manifest) => m;\n",
    'src/report/index.ts': "export { show } from './show.js';\n",
    'src/report/show.ts': 'export const show = () => 1;\n',
  };
  const tree = (extra: Record<string, string>) => new Map(Object.entries({ ...base, ...extra }));

  it('passes a tree that keeps the rules', () => {
    expect(checkLayering(tree({}))).toEqual([]);
  });

  it("lets every part import the logger's types, and only its types", () => {
    const logger = {
      'src/logger.ts': 'export type LogSink = { info(m: string): void };\nexport const root = 1;\n',
    };
    const typed = tree({
      ...logger,
      'src/render/logs.ts':
        "import type { LogSink } from '../logger.js';\nexport const logs = (l: LogSink) => l;\n",
    });
    const valued = tree({
      ...logger,
      'src/render/logs.ts': "import { root } from '../logger.js';\nexport const logs = root;\n",
    });
    expect(checkLayering(typed)).toEqual([]);
    expect(checkLayering(valued).map((v) => v.rule)).toEqual(['layer']);
  });

  it.each([
    [
      'an upward import (render reaching into report)',
      {
        'src/render/up.ts': "import { show } from '../report/index.js';\nexport const up = show;\n",
      },
      'layer',
    ],
    [
      'a deep import past a folder index',
      {
        'src/report/deep.ts':
          "import type { Manifest } from '../model/render.js';\nexport type Deep = Manifest;\n",
      },
      'deep-import',
    ],
    [
      'a cycle between two subfolders (through different files of one)',
      {
        'src/render/a/index.ts': "export { a } from './a.js';\n",
        'src/render/a/a.ts': "import { b } from '../b/index.js';\nexport const a = b;\n",
        'src/render/b/index.ts': "export { b } from './b.js';\n",
        'src/render/b/b.ts': 'export const b = () => 1;\n',
        'src/render/b/c.ts': "import { a } from '../a/index.js';\nexport const c = () => a;\n",
      },
      'folder-cycle',
    ],
    [
      'a cycle between two files of one folder',
      {
        'src/render/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
        'src/render/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      },
      'file-cycle',
    ],
    [
      'a cycle of files closed by a type-only import',
      {
        'src/render/keys.ts':
          "import type { Input } from './builder.js';\nexport const key = (i: Input) => i.path;\n",
        'src/render/builder.ts':
          "import { key } from './keys.js';\nexport interface Input { path: string }\nexport const build = key;\n",
      },
      'file-cycle',
    ],
  ])('fails on %s', (_case, extra, rule) => {
    const violations = checkLayering(tree(extra));
    expect(violations.map((v) => v.rule)).toEqual([rule]);
  });
});
