import { describe, expect, it } from 'vitest';
import { isOwnerName, isRepositoryName, repositoryKey } from '../../../src/model/index.js';

/** Names the service was sent from outside, none of them GitHub's. */
const HOSTILE_NAMES = ['..', '.', 'a/b', '%2e%2e', 'hôme-ops', '../../x', '', 'a\0b'];

describe("GitHub's owner and repository names", () => {
  it.each([
    'home-ops',
    'Example',
    'a',
    'a1-b2-c3',
    'x'.repeat(39),
    'old--name',
    'old-',
    'mona_corp',
  ])('takes %j as an owner', (name) => expect(isOwnerName(name)).toBe(true));

  it.each([...HOSTILE_NAMES, '-lead', 'x'.repeat(40), 'a.b', 'dependabot[bot]', 'a b'])(
    'refuses %j as an owner',
    (name) => expect(isOwnerName(name)).toBe(false),
  );

  it.each(['fleet', 'Home-Ops', '.github', 'a..b', '...', 'x_y.z-1', 'r'.repeat(100)])(
    'takes %j as a repository',
    (name) => expect(isRepositoryName(name)).toBe(true),
  );

  it.each([...HOSTILE_NAMES, 'r'.repeat(101), 'a b', 'fleet?x', 'fleet#x'])(
    'refuses %j as a repository',
    (name) => expect(isRepositoryName(name)).toBe(false),
  );

  it('keys a repository the same whatever the case', () => {
    expect(repositoryKey('Example', 'Home-Ops')).toBe(repositoryKey('example', 'home-ops'));
  });
});
