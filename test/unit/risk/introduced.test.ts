import { describe, expect, it } from 'vitest';
import { introduced } from '../../../src/risk/kit/introduced.js';

const facts = (...keys: string[]) => keys.map((key) => ({ key, note: key.toUpperCase() }));

describe('the "introduced" helper', () => {
  it.each<[string, string[], string[], string[]]>([
    ['reports every fact of an object new at head', [], ['a', 'b'], ['a', 'b']],
    ['stays quiet about a fact already true at base', ['a'], ['a'], []],
    ['reports only the facts base lacked', ['a'], ['a', 'b'], ['b']],
    ['stays quiet about facts that went away', ['a', 'b'], ['a'], []],
    ['reports a repeated fact once', [], ['a', 'a'], ['a']],
  ])('%s', (_name, before, after, expected) => {
    expect(introduced(facts(...before), facts(...after)).map((f) => f.key)).toEqual(expected);
  });

  it('keeps the head side of each introduced fact', () => {
    expect(introduced(facts('a'), facts('b'))).toEqual([{ key: 'b', note: 'B' }]);
  });
});
