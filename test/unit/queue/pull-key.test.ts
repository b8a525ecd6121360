import { describe, expect, it } from 'vitest';
import { pullKey } from '../../../src/queue/pull-key.js';

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
