/**
 * Generated substitution cases: a template made of text and `${...}` expressions using every
 * operator of Flux's envsubst dialect (and near misses of them), the variables it is
 * evaluated with, and strict mode. Kept well inside fluxlens's own bounds on one expansion
 * (nesting depth, references, growth), which Flux does not have.
 */
import fc from 'fast-check';

export interface SubstitutionCase {
  template: string;
  vars: Record<string, string>;
  strict: boolean;
  /** Variables whose value comes from a Secret: their expansions are marked, never changed. */
  secret: string[];
}

/** Set names a Kustomization may define (Flux checks them against ^[_[:alpha:]][_[:alpha:][:digit:]]*$). */
const SET_NAMES = ['A', 'B', 'C', '_x', 'v1'];
/** Names no source defines: unset, also in the parser's Unicode letters and digits. */
const OTHER_NAMES = ['UNSET', 'é', 'Ⅸ', '日本', '1a', 'a_b2'];

/** Characters that mean something somewhere in the dialect, and some that take many bytes. */
const SYNTAX = ['$', '{', '}', ':', '-', '=', '+', '?', ',', '^', '#', '%', '/', '\\'];
const GLOB = ['*', '?', '[', ']', '^', '!', '-', '\\'];
const PLAIN = ['a', 'b', 'Z', '_', '0', '1', '9', ' ', '.', '"', "'", '\n', '\t'];
const WIDE = ['é', 'ß', 'İ', 'ǅ', 'ﬀ', '日', 'Ω', 'ᾳ', '😀', '\u0301', '\u00a0'];

/** Any character past ASCII, assigned or not: what the case operators meet in the wild. */
const anyWide = fc
  .integer({ min: 0x80, max: 0x2ffff })
  .filter((cp) => cp < 0xd800 || cp > 0xdfff)
  .map((cp) => String.fromCodePoint(cp));

const charsOf = (...sets: string[][]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...new Set(sets.flat())) },
    { weight: 1, arbitrary: anyWide },
  );

const textOf = (chars: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string> =>
  fc.array(chars, { maxLength }).map((parts) => parts.join(''));

/** A variable's value: often empty, often glob-like, sometimes `$` text that must stay as is. */
const value = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 4, arbitrary: textOf(charsOf(PLAIN, GLOB, WIDE, ['$', '{', '}', '/']), 8) },
);

/** Offsets and lengths of `${v:offset:length}`, including Go's int overflow and non-numbers. */
const NUMBERS = [
  '0',
  '1',
  '2',
  '3',
  '-1',
  '-2',
  ' -1',
  '-100',
  '100',
  '+1',
  '007',
  '1a',
  '',
  ' ',
  '9223372036854775807',
  '9223372036854775806',
  '-9223372036854775808',
  '9223372036854775808',
  '4611686018427387904',
];

const name = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SET_NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...OTHER_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('', '-', '{', ' A', 'A B') },
);

/** How an expression ends: almost always `}`. */
const close = fc.oneof(
  { weight: 12, arbitrary: fc.constant('}') },
  { weight: 1, arbitrary: fc.constantFrom('', '}}', ' }', ':}') },
);

// A type, not an interface: fast-check types the recursion only for record types.
type Parts = { expr: string; arg: string };

const patternText = textOf(charsOf(GLOB, PLAIN.slice(0, 6), WIDE.slice(0, 4), ['/', '$']), 4);
const argText = textOf(charsOf(PLAIN, WIDE, SYNTAX, GLOB), 5);

/** `${...}` with every operator; arguments may nest further expressions. */
const { expr } = fc.letrec<Parts>((tie) => {
  const arg = fc.oneof(
    { depthSize: 'small', maxDepth: 4, withCrossShrink: true },
    { weight: 4, arbitrary: argText },
    { weight: 1, arbitrary: tie('expr') },
  );
  const args = fc.array(arg, { maxLength: 3 }).map((parts) => parts.join(''));
  const pattern = fc.oneof(
    { weight: 4, arbitrary: patternText },
    { weight: 1, arbitrary: tie('expr') },
  );
  const number = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...NUMBERS) },
    { weight: 1, arbitrary: tie('expr') },
  );
  const operator = fc.oneof(
    fc.constant(''),
    fc
      .tuple(fc.constantFrom(':-', ':=', ':+', ':?', '-', '=', '+', '?'), args)
      .map(([op, a]) => op + a),
    fc.constantFrom(',', ',,', '^', '^^', ',^', '^,', '^^^'),
    fc.tuple(fc.constantFrom('#', '##', '%', '%%', '###'), pattern).map(([op, p]) => op + p),
    fc
      .tuple(number, fc.option(fc.tuple(fc.constantFrom(':', '::'), number)))
      .map(([offset, length]) => `:${offset}${length === null ? '' : length.join('')}`),
    fc
      .tuple(
        fc.constantFrom('/', '//', '/#', '/%', '///'),
        pattern,
        fc.option(fc.tuple(fc.constantFrom('/', '//'), fc.option(args, { nil: '' }))),
      )
      .map(([op, p, repl]) => op + p + (repl === null ? '' : repl.join(''))),
  );
  const expression = fc.oneof(
    {
      weight: 12,
      arbitrary: fc.tuple(name, operator, close).map(([n, op, c]) => `\${${n}${op}${c}`),
    },
    { weight: 1, arbitrary: fc.tuple(name, close).map(([n, c]) => `\${#${n}${c}`) },
  );
  return { expr: expression, arg };
});

/** Text between expressions, with the escapes (`$$`, `$${`) and a lone `$`. */
const text = fc.oneof(
  { weight: 4, arbitrary: textOf(charsOf(PLAIN, WIDE), 4) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('$', '$$', '$${A}', '$$${A}', '$A', '${', '}', '\\${A}'),
  },
);

const structured = fc
  .array(fc.oneof({ weight: 2, arbitrary: text }, { weight: 3, arbitrary: expr }), {
    maxLength: 5,
  })
  .map((parts) => parts.join(''));

/** Free text over the dialect's characters, for what the structure above does not think of. */
const unstructured = textOf(charsOf(SYNTAX, SYNTAX, SET_NAMES, GLOB, WIDE.slice(0, 3)), 16);

export const substitutionCase: fc.Arbitrary<SubstitutionCase> = fc.record({
  template: fc.oneof({ weight: 4, arbitrary: structured }, { weight: 1, arbitrary: unstructured }),
  vars: fc
    .record(Object.fromEntries(SET_NAMES.map((n) => [n, value])), { requiredKeys: [] })
    .map((vars) => {
      const set: Record<string, string> = {};
      for (const [n, v] of Object.entries(vars)) if (v !== undefined) set[n] = v;
      return set;
    }),
  strict: fc.boolean(),
  secret: fc.subarray(SET_NAMES),
});
