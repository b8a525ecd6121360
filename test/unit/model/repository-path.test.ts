import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInside, repositoryPath } from '../../../src/model/index.js';

const root = join(sep, 'work', 'repo');

describe('a path inside the repository', () => {
  it.each([
    ['a file below the root', join(root, 'apps', 'a.yaml'), true],
    ['a folder whose name starts with two dots', join(root, '..apps'), true],
    ['the folder above', join(sep, 'work'), false],
    ['a sibling that shares the prefix', join(sep, 'work', 'repo-other', 'a.yaml'), false],
    ['a path elsewhere', join(sep, 'etc', 'passwd'), false],
  ])('%s: the same whether or not the root itself counts', (_case, path, inside) => {
    expect(isInside(root, path)).toBe(inside);
    expect(isInside(root, path, { strictly: true })).toBe(inside);
  });

  it('counts the root itself as inside, but not as strictly inside', () => {
    expect(isInside(root, root)).toBe(true);
    expect(isInside(root, root, { strictly: true })).toBe(false);
  });

  it.each([
    ['apps/', 'apps'],
    ['./apps//prod', 'apps/prod'],
    ['', '.'],
    ['../x', undefined],
    ['/etc', undefined],
  ])('reads %j as the repository folder %j', (path, expected) => {
    expect(repositoryPath(path)).toBe(expected);
  });
});
