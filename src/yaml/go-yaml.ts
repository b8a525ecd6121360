/**
 * YAML as sigs.k8s.io/yaml reads it: go-yaml v2 (YAML 1.1 booleans and octals, no base-60
 * numbers, timestamps left as strings), then JSON (string keys, no NaN or Infinity). Callers
 * decide what the values mean and word the errors; messages here never quote the source.
 */
import {
  type Document,
  type LineCounter,
  Scalar,
  type ScalarTag,
  type Tags,
  type YAMLParseError,
  visit,
} from 'yaml';
import { FluxlensError } from '../errors.js';
import {
  ALIAS_CYCLE,
  ExpansionBudget,
  MAX_ALIAS_COUNT,
  NO_ANCHOR,
  TOO_DEEP,
  aliasProblem,
  composeBounded,
} from './yaml-bounds.js';

/** What go-yaml or the JSON step refuses; the message is a code and position, never content. */
export class GoYamlError extends FluxlensError {
  constructor(message: string) {
    super('invalid-content', message);
    this.name = 'GoYamlError';
  }
}

const INT_TAG = 'tag:yaml.org,2002:int';
const FLOAT_TAG = 'tag:yaml.org,2002:float';
const NON_FINITE_LITERAL = /^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/;
/**
 * Whether go-yaml v2 reads a plain scalar the float tag matched as a float: after a leading
 * digit or sign, in this form once underscores are removed; after a leading dot, as Go's
 * ParseFloat reads it, underscores not allowed. `.` and `._5` stay strings.
 */
const GO_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const isGoFloat = (text: string): boolean =>
  text.startsWith('.')
    ? /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/.test(text)
    : GO_FLOAT.test(text.replaceAll('_', ''));

/** Go's ParseInt also reads `0o17` and upper-case prefixes such as `0X1F`, unknown to YAML 1.1. */
const goPrefixedInt: ScalarTag = {
  identify: () => false,
  default: true,
  tag: INT_TAG,
  test: /^[-+]?0(?:[bB][01_]*[01][01_]*|[oO][0-7_]*[0-7][0-7_]*|[xX][0-9a-fA-F_]*[0-9a-fA-F][0-9a-fA-F_]*)$/,
  resolve: (text) => {
    const digits = text.replaceAll('_', '').toLowerCase();
    const negative = digits.startsWith('-');
    const magnitude = BigInt(digits.replace(/^[-+]/, ''));
    // Beyond int64 (negative) or uint64 (positive) both Go parsers fail and the text stays.
    if (magnitude > (negative ? 2n ** 63n : 2n ** 64n - 1n)) return text;
    return negative ? -Number(magnitude) : Number(magnitude);
  },
};

/** Go's ParseFloat fails on out-of-range numbers such as `1e400`, and go-yaml keeps the text. */
function keepOverflowAsString(tag: ScalarTag): ScalarTag {
  return {
    ...tag,
    resolve: (text, onError, options) => {
      if (tag.tag === FLOAT_TAG && !NON_FINITE_LITERAL.test(text)) {
        if (!isGoFloat(text)) return text;
      }
      const value = tag.resolve(text, onError, options);
      const overflow = typeof value === 'number' && !Number.isFinite(value);
      return overflow && !NON_FINITE_LITERAL.test(text) ? text : value;
    },
  };
}

/**
 * The yaml package's `yaml-1.1` tags as go-yaml v2 resolves scalars: without the timestamp
 * and base-60 resolvers (go-yaml leaves those strings), with Go's number parsing.
 */
export const goYamlTags = (tags: Tags): Tags => [
  ...tags
    .filter(
      (tag) =>
        typeof tag === 'string' ||
        (tag.tag !== 'tag:yaml.org,2002:timestamp' && tag.format !== 'TIME'),
    )
    .map((tag) =>
      typeof tag !== 'string' &&
      tag.collection === undefined &&
      (tag.tag === INT_TAG || tag.tag === FLOAT_TAG)
        ? keepOverflowAsString(tag)
        : tag,
    ),
  goPrefixedInt,
];

/** sigs.k8s.io/yaml's key conversion: scalars become strings, anything else is an error. */
function jsonKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'boolean' || typeof key === 'bigint') return String(key);
  if (typeof key === 'number') {
    if (Number.isNaN(key)) return '.nan';
    if (!Number.isFinite(key)) return key > 0 ? '.inf' : '-.inf';
    return String(key);
  }
  throw new GoYamlError('unsupported map key');
}

/**
 * The Map-based parse result as JSON-shaped data, as Go's YAML-to-JSON step makes it.
 * `open` holds the collections being converted: an alias inside its own anchor makes a
 * cycle, which go-yaml refuses ("anchor value contains itself").
 */
function toJsonShape(value: unknown, open = new Set<unknown>()): unknown {
  if (!(value instanceof Map) && !Array.isArray(value)) return scalarJsonShape(value);
  if (open.has(value)) throw new GoYamlError('anchor value contains itself');
  open.add(value);
  let out: unknown;
  if (value instanceof Map) {
    // Object.fromEntries keeps a `__proto__` key as plain data.
    const entries: Array<[string, unknown]> = [];
    for (const [key, item] of value) entries.push([jsonKey(key), toJsonShape(item, open)]);
    out = Object.fromEntries(entries);
  } else {
    out = value.map((item: unknown) => toJsonShape(item, open));
  }
  open.delete(value);
  return out;
}

function scalarJsonShape(value: unknown): unknown {
  // go-yaml decodes !!binary into a Go string; JSON then reads its bytes as UTF-8.
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  // JSON has no NaN or Infinity, so Go's json.Marshal rejects `.nan` and `.inf` values.
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new GoYamlError('unsupported value');
  return value;
}

/** Positions only: a YAML error excerpt quotes the source, which may hold secrets. */
function describeYamlError(error: YAMLParseError, lines: LineCounter): string {
  const offset = error.pos[0];
  if (offset < 0) return error.code;
  const at = lines.linePos(offset);
  return `${error.code} at line ${at.line}, column ${at.col}`;
}

function documentValue(doc: Document.Parsed, budget: ExpansionBudget, lines: LineCounter): unknown {
  const first = doc.errors[0];
  if (first) throw new GoYamlError(describeYamlError(first, lines));
  let value: unknown;
  try {
    value = doc.toJS({ mapAsMap: true, maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    const problem = aliasProblem(doc);
    throw new GoYamlError(problem === NO_ANCHOR ? 'unknown anchor referenced' : problem);
  }
  // Before toJsonShape, which recurses and copies every node an alias repeats.
  const problem = budget.check(value);
  if (problem === ALIAS_CYCLE) throw new GoYamlError('anchor value contains itself');
  if (problem) throw new GoYamlError(problem);
  return toJsonShape(value);
}

/**
 * go-yaml gives a block scalar whose last line ends the input (no line break after it) no
 * final line break; the yaml package adds one.
 */
function endBlockScalarAtEof(doc: Document.Parsed, text: string): void {
  if (/[\r\n]$/.test(text) || !/\S[^\r\n]*$/.test(text)) return;
  visit(doc, {
    Scalar(_key, node) {
      const block = node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED;
      if (block && node.range?.[1] === text.length && typeof node.value === 'string') {
        node.value = node.value.replace(/\n$/, '');
      }
    },
  });
}

/**
 * The JSON-shaped value of each document (null for an empty one), one at a time, so a broken
 * document fails only when it is reached. sigs.k8s.io/yaml reads the first document and
 * never looks at the rest; Helm's chart loader reads them all (`allDocuments`). Throws
 * GoYamlError, also for a document past the bounds of yaml-bounds.ts.
 */
export function* parseGoYaml(
  text: string,
  options: { allDocuments?: boolean } = {},
): Generator<unknown, void, undefined> {
  const { docs, lines, tooDeep } = composeBounded(text, {
    schema: 'yaml-1.1',
    customTags: goYamlTags,
    merge: true,
    uniqueKeys: false,
    logLevel: 'error',
  });
  const wanted = docs.slice(0, options.allDocuments === true ? undefined : 1);
  const budget = new ExpansionBudget(text);
  for (const doc of wanted) {
    endBlockScalarAtEof(doc, text);
    yield documentValue(doc, budget, lines);
  }
  if (tooDeep && (options.allDocuments === true || wanted.length === 0)) {
    throw new GoYamlError(`${TOO_DEEP} at line ${tooDeep.line}`);
  }
}
