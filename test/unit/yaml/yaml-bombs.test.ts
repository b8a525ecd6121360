/**
 * YAML written to exhaust the reader: nesting a hundred thousand levels deep, billion laughs
 * and other alias expansions, aliases inside their own anchor. Each is refused with a message
 * a render error can carry after the file's name; the reader never overflows the stack.
 */
import { describe, expect, it } from 'vitest';
import { parseDocuments } from '../../../src/yaml/yaml.js';
import { GoYamlError, parseGoYaml } from '../../../src/yaml/go-yaml.js';
import { envsubst, SubstitutionError } from '../../../src/render/builtin/substitute.js';

const LEVELS = 100_000;

/** `[[[…]]]` */
const flowSequences = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
/** `{a: {a: … 1}}` */
const flowMappings = (levels: number): string => '{a: '.repeat(levels) + '1' + '}'.repeat(levels);
/** `- - - … x`: each indicator opens a block sequence on the same line. */
const blockSequences = (levels: number): string => '- '.repeat(levels) + 'x';
/** `a:\n a:\n  a: … 1`, one more space per level. */
const blockMappings = (levels: number): string =>
  Array.from({ length: levels }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1';

/** The classic: nine anchors, each nine aliases of the one before, 9^9 leaves expanded. */
function billionLaughs(): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: lol}'];
  lines.push(`l0: &l0 [${Array(9).fill('lol').join(', ')}]`);
  for (let i = 1; i <= 9; i++)
    lines.push(
      `l${i}: &l${i} [${Array(9)
        .fill(`*l${i - 1}`)
        .join(', ')}]`,
    );
  return `${lines.join('\n')}\n`;
}

/** Few aliases by yaml's count, but each repeats a megabyte: a gigabyte once expanded. */
function wideLaughs(): string {
  const lines = [`big: &big "${'x'.repeat(1_000_000)}"`];
  lines.push(`l1: &l1 [${Array(30).fill('*big').join(', ')}]`);
  lines.push(`l2: [${Array(30).fill('*l1').join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

/** Two anchors of 200 levels each, one used inside the other: 400 levels once expanded. */
function deepThroughAliases(): string {
  return `inner: &inner ${flowSequences(200)}\nouter: ${'['.repeat(200)}*inner${']'.repeat(200)}\n`;
}

const BOMBS: Array<[string, string, RegExp]> = [
  ['100,000 nested flow sequences', flowSequences(LEVELS), /^nesting deeper than 256 levels/],
  ['100,000 nested flow mappings', flowMappings(LEVELS), /^nesting deeper than 256 levels/],
  ['100,000 nested block sequences', blockSequences(LEVELS), /^nesting deeper than 256 levels/],
  ['2,000 nested block mappings', blockMappings(2_000), /^nesting deeper than 256 levels/],
  [
    'sequences nested with anchors between their indicators',
    `${'- &a '.repeat(LEVELS)}x`,
    /^nesting deeper than 256 levels/,
  ],
  [
    'flow sequences that each hold a quoted closing bracket',
    `${"[']', ".repeat(LEVELS)}x${']'.repeat(LEVELS)}`,
    /^nesting deeper than 256 levels/,
  ],
  ['a billion laughs', billionLaughs(), /^more than 1000 aliases$/],
  ['a megabyte repeated 900 times', wideLaughs(), /^aliases expand it to more than twice/],
  ['nesting that aliases deepen', deepThroughAliases(), /^nesting deeper than 256 levels/],
  ['an alias inside its own anchor', 'a: &x [*x]\n', /^an alias inside the node it refers to$/],
];

describe('reading YAML a pull request wrote to exhaust the reader', () => {
  it.each(BOMBS)('refuses %s with an error, not a crash', (_, text, message) => {
    const parsed = parseDocuments(`apiVersion: v1\nkind: ConfigMap\n---\n${text}\n`);
    expect(parsed.error).toMatch(message);
    expect(parsed.documents.map((d) => d.manifest)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap' },
    ]);
  });

  it('says on which line a document passes the nesting bound', () => {
    const parsed = parseDocuments(`a: 1\n---\nb:\n  c: ${flowSequences(LEVELS)}\n`);
    expect(parsed.error).toBe('nesting deeper than 256 levels at line 4');
  });

  it.each<[string, (levels: number) => string]>([
    ['flow sequences', flowSequences],
    ['flow mappings', flowMappings],
    ['block sequences', blockSequences],
    ['block mappings', blockMappings],
  ])('reads %s nested 256 levels deep and refuses 257', (_, nest) => {
    expect(parseDocuments(`${nest(256)}\n`).error).toBeUndefined();
    expect(parseDocuments(`${nest(257)}\n`).error).toMatch(/^nesting deeper than 256 levels/);
  });

  it('refuses an alias with no anchor before it as broken YAML, not a bomb, and does not throw', () => {
    const parsed = parseDocuments('a: 1\n---\nb: *nowhere\n');
    expect(parsed).toEqual({
      documents: [{ manifest: { a: 1 }, line: 1 }],
      error: 'an alias with no anchor before it',
    });
  });

  it('still reads the anchors and aliases people write', () => {
    const parsed = parseDocuments(
      'defaults: &defaults {cpu: 1, memory: 1Gi}\nweb: *defaults\nworker: {limits: *defaults}\n',
    );
    expect(parsed.error).toBeUndefined();
    expect(parsed.documents[0]?.manifest).toEqual({
      defaults: { cpu: 1, memory: '1Gi' },
      web: { cpu: 1, memory: '1Gi' },
      worker: { limits: { cpu: 1, memory: '1Gi' } },
    });
  });
});

describe('reading YAML as Go does, from a pull request that wrote it to exhaust the reader', () => {
  const goError = (text: string, allDocuments = false): string => {
    try {
      Array.from(parseGoYaml(text, { allDocuments }));
    } catch (error) {
      expect(error).toBeInstanceOf(GoYamlError);
      return (error as GoYamlError).message;
    }
    throw new Error('expected a GoYamlError');
  };

  it.each(BOMBS.filter(([name]) => !name.includes('own anchor')))(
    'refuses %s with a GoYamlError',
    (_, text, message) => {
      expect(goError(text)).toMatch(message);
    },
  );

  it('keeps go-yaml words for an alias inside its own anchor, or with no anchor', () => {
    expect(goError('a: &x [*x]\n')).toBe('anchor value contains itself');
    expect(goError('a: *x\n')).toBe('unknown anchor referenced');
  });

  it('reads only the first document as sigs.k8s.io/yaml does, whatever follows it', () => {
    const text = `a: 1\n---\n${flowSequences(LEVELS)}\n`;
    expect([...parseGoYaml(text)]).toEqual([{ a: 1 }]);
    expect(goError(text, true)).toMatch(/^nesting deeper than 256 levels at line 3$/);
  });
});

describe('substituting variables in text a pull request nested to exhaust the reader', () => {
  it('refuses defaults nested 100,000 levels deep with a SubstitutionError', () => {
    const text = '${A:-'.repeat(LEVELS) + 'x' + '}'.repeat(LEVELS);
    let caught: unknown;
    try {
      envsubst(text, () => undefined, { strict: false });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SubstitutionError);
    expect((caught as Error).message).toBe('substitution nested deeper than 256 levels');
  });

  it('still expands defaults nested a few levels deep', () => {
    expect(envsubst('${A:-${B:-${C:-x}}}', () => undefined, { strict: false })).toBe('x');
  });
});
