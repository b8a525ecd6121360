/**
 * Issue 11, point 11: YAML too large to read. A document with more nodes than fluxlens
 * reads is found by lexing alone, naming the line where it passes the bound; files of the
 * size real repositories hold are never even lexed.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_DOCUMENT_NODES,
  TOO_BIG,
  TOO_MANY_NODES,
  tooManyNodes,
} from '../../../src/yaml/yaml-bounds.js';

/** A ConfigMap of `keys` keys: eight nodes of its own, then two per key, one key a line. */
function configMap(keys: number): string {
  const head = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: wide', 'data:'];
  const lines = Array.from({ length: keys }, (_, i) => `  key${i}: v`);
  return `${[...head, ...lines].join('\n')}\n`;
}

/** Keys that fit the bound exactly: 8 + 2 * KEYS = MAX_DOCUMENT_NODES. */
const KEYS = (MAX_DOCUMENT_NODES - 8) / 2;

describe('the node bound of one YAML document', () => {
  it('speaks of the file size and the nodes in the words of a render error', () => {
    expect(TOO_BIG).toBe('larger than 8 MiB');
    expect(TOO_MANY_NODES).toBe('more than 100000 nodes in one document');
  });

  it('reads a document with exactly as many nodes as the bound', () => {
    expect(tooManyNodes(configMap(KEYS))).toBeUndefined();
  });

  it('refuses a document with one key more, at the line of the node past the bound', () => {
    // Line 5 is `data:`; key i is on line 6 + i, and the bound is passed by its value.
    expect(tooManyNodes(configMap(KEYS + 1))).toEqual({ line: 6 + KEYS });
  });

  it('refuses a document with a million keys', () => {
    expect(tooManyNodes(configMap(1_000_000))).toEqual({ line: 6 + KEYS });
  });

  it('counts each document of a stream on its own', () => {
    const stream = [configMap(KEYS), configMap(KEYS), configMap(KEYS)].join('---\n');
    expect(tooManyNodes(stream)).toBeUndefined();
    expect(tooManyNodes(`${configMap(KEYS)}---\n${configMap(KEYS + 1)}`)).toEqual({
      line: 2 * (6 + KEYS),
    });
  });

  it.each([
    ['plain scalars in a flow sequence', (n: number) => `items: [${'1, '.repeat(n)}1]\n`],
    ['quoted scalars', (n: number) => `items: [${'"a", '.repeat(n)}'b']\n`],
    ['aliases', (n: number) => `a: &a 1\nitems: [${'*a, '.repeat(n)}*a]\n`],
    ['flow mappings', (n: number) => `items: [${'{}, '.repeat(n)}{}]\n`],
    ['block scalars', (n: number) => `items:\n${'- |\n  text\n'.repeat(n)}`],
  ])('counts %s as nodes', (_, text) => {
    expect(tooManyNodes(text(MAX_DOCUMENT_NODES))).toEqual({ line: expect.any(Number) });
    expect(tooManyNodes(text(MAX_DOCUMENT_NODES - 10))).toBeUndefined();
  });

  it.each([
    ['block sequences', '- '.repeat(100_000)],
    ['flow sequences', `${'['.repeat(150_000)}${']'.repeat(150_000)}`],
    ['flow mappings', `${'{a: '.repeat(100_000)}1${'}'.repeat(100_000)}`],
    ['sequences with anchors between their indicators', '- &a '.repeat(100_000)],
  ])('leaves %s nested 100,000 deep to the depth bound, without a stack overflow', (_, text) => {
    expect(tooManyNodes(text)).toBeUndefined();
  });

  it('passes large files of few nodes, and the text inside them, without a count', () => {
    const long = `data:\n  a: ${'x'.repeat(9 * 1024 * 1024)}\n  b: |\n${'    - a: [1, 2]\n'.repeat(200_000)}`;
    expect(tooManyNodes(long)).toBeUndefined();
  });
});
