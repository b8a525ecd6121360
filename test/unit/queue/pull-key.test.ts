import { describe, expect, it } from 'vitest';
import { pullKey, pullOfKey } from '../../../src/queue/pull-key.js';

describe('pullKey', () => {
  it.each([
    [{ owner: 'acme', repo: 'fleet', pullNumber: 7 }, 'acme~fleet~7'],
    [{ owner: 'Acme', repo: 'Fleet', pullNumber: 7 }, 'acme~fleet~7'],
    [{ owner: 'acme', repo: 'acme.github.io', pullNumber: 1 }, 'acme~acme%2egithub%2eio~1'],
    [{ owner: 'a/b', repo: 'c', pullNumber: 1 }, 'a%2fb~c~1'],
    [{ owner: 'a', repo: 'b/c', pullNumber: 1 }, 'a~b%2fc~1'],
    [{ owner: '..', repo: '~', pullNumber: 1 }, '%2e%2e~%7e~1'],
  ])('keys %o as %s', (pull, key) => {
    expect(pullKey(pull)).toBe(key);
  });

  it('never yields a path separator or a dot, whatever the names', () => {
    const key = pullKey({ owner: '../../root', repo: 'ünïcode\\x', pullNumber: 3 });
    expect(key).not.toMatch(/[/\\.]/);
  });
});

describe('pullOfKey', () => {
  it.each([
    { owner: 'acme', repo: 'fleet', pullNumber: 7 },
    { owner: 'acme', repo: 'acme.github.io', pullNumber: 1 },
    { forge: 'gitea' as const, owner: 'acme', repo: 'fleet', pullNumber: 7 },
  ])('reads back the pull request %o from its key', (pull) => {
    expect(pullOfKey(pullKey(pull))).toEqual(pull);
  });

  it.each([
    'acme~fleet',
    'acme~fleet~0',
    'github~acme~fleet~7',
    'gitlab~acme~fleet~7',
    'a~b~c~d~1',
  ])('names nothing for %s', (key) => {
    expect(pullOfKey(key)).toBeUndefined();
  });
});
