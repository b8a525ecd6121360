import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentLine, sourceLineFinder } from '../../../src/render/builtin/source-line-finder.js';
import { parseDocuments } from '../../../src/yaml/yaml.js';

const doc = (kind: string, name: string) =>
  `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;

/** Documents start at lines 1, 6, 11 and 16. */
const FILE = [
  doc('ConfigMap', 'app'),
  doc('ConfigMap', 'app-extra'),
  doc('Service', 'app'),
  doc('Secret', 'token'),
].join('---\n');

describe('documentLine', () => {
  const documents = parseDocuments(FILE).documents;

  it.each([
    ['the document of that kind and name', 'ConfigMap', 'app', 1],
    ['the document of that kind when another kind shares the name', 'Service', 'app', 11],
    ['the one name of that kind the rendered name contains', 'ConfigMap', 'pre-app', 1],
    ['the exact name before names it only contains', 'ConfigMap', 'app-extra', 6],
    ['the only document of that kind, whatever its name', 'Secret', 'renamed', 16],
    ['nothing when two names of that kind fit', 'ConfigMap', 'pre-app-extra', undefined],
    ['nothing when no name fits and the kind is not alone', 'ConfigMap', 'other', undefined],
    ['nothing when the file holds no document of that kind', 'Deployment', 'app', undefined],
  ])('finds %s', (_case, kind, name, line) => {
    expect(documentLine(documents, kind, name)).toBe(line);
  });

  it('finds nothing when the same kind and name are written twice', () => {
    const twice = parseDocuments([doc('ConfigMap', 'app'), doc('ConfigMap', 'app')].join('---\n'));
    expect(documentLine(twice.documents, 'ConfigMap', 'app')).toBeUndefined();
  });
});

describe('sourceLineFinder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-lines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const root = join(dir, 'copy');
  mkdirSync(join(root, 'apps'), { recursive: true });
  writeFileSync(join(root, 'apps', 'all.yaml'), FILE);
  writeFileSync(join(dir, 'outside.yaml'), doc('ConfigMap', 'outside'));
  symlinkSync(join(dir, 'outside.yaml'), join(root, 'apps', 'escape.yaml'));

  it('finds the line of a document in a file under the root', async () => {
    await expect(sourceLineFinder(root)('apps/all.yaml', 'Service', 'app')).resolves.toBe(11);
  });

  it.each([
    ['a symlink that leads out of the root', 'apps/escape.yaml'],
    ['a path that climbs out of the root', '../outside.yaml'],
    ['a file that does not exist', 'apps/missing.yaml'],
  ])('reads nothing through %s', async (_case, file) => {
    await expect(sourceLineFinder(root)(file, 'ConfigMap', 'outside')).resolves.toBeUndefined();
  });
});
