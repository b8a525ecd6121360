import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mirrorDir } from '../../../src/git/mirror.js';

const CACHE = '/var/cache/fluxlens';
const MIRRORS = join(CACHE, 'mirrors');
const HOSTILE = ['..', '.', 'a/b', '%2e%2e', 'hôme', '../../x', '/etc', 'a\\..\\b', '', '.git'];

describe('the mirror folder of a repository', () => {
  it('is mirrors/<owner>/<repo>.git, lower-cased, for names GitHub gives', () => {
    expect(mirrorDir(CACHE, 'Home-Ops', 'Fleet')).toBe(join(MIRRORS, 'home-ops', 'fleet.git'));
  });

  it.each(HOSTILE.flatMap((owner) => HOSTILE.map((repo) => [owner, repo])))(
    'stays two levels under the mirrors folder for owner %j and repository %j',
    (owner, repo) => {
      const dir = mirrorDir(CACHE, owner, repo);
      const parts = relative(MIRRORS, dir).split(sep);
      expect(parts).toHaveLength(2);
      expect(parts.every((part) => part !== '..' && part !== '.' && part !== '')).toBe(true);
      expect(dir.startsWith(`${MIRRORS}${sep}`)).toBe(true);
    },
  );

  it('gives names that read alike after cleaning folders of their own', () => {
    const dirs = ['a/b', 'a?b', 'a_b', 'A/B'].map((repo) => mirrorDir(CACHE, 'acme', repo));
    expect(new Set(dirs).size).toBe(dirs.length);
  });
});
