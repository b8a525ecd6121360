/**
 * The functions a ResourceSet template may call that fluxlens evaluates: Go's builtins and
 * the slim-sprig functions real ResourceSets use, with their Go semantics (arguments in
 * order, a piped value last). Any other name is TemplateUnsupported: slim-sprig has more,
 * and flux-operator adds its own (`slugify`), whose exact output is theirs to define.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import {
  TemplateError,
  TemplateUnsupported,
  Unknown,
  goString,
  goType,
  isMap,
  isTrue,
  type Value,
} from './template-values.js';

/** What the functions need besides their arguments (none yet; a seam for tests). */
export type FunctionContext = Record<string, never>;

type Fn = (args: Value[]) => Value;

const str = (v: Value): string => (v === null ? '' : goString(v));

function arity(name: string, args: Value[], n: number): void {
  if (args.length !== n)
    throw new TemplateError(`wrong number of args for ${name}: want ${n} got ${args.length}`);
}

/** sprig's toInt64: strings parse (else 0), floats truncate, booleans are 1 and 0. */
function toInt(v: Value): number {
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const t = v.trim();
    if (/^[-+]?\d+$/.test(t)) return Number(t);
    if (/^[-+]?\d*\.\d+$/.test(t)) return Math.trunc(Number(t));
    return 0;
  }
  return 0;
}

/** sprig's empty: Go's zero values. */
function isEmpty(v: Value): boolean {
  return !isTrue(v);
}

/** Go's %q of a string: double quotes, Go escapes. */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\u007f/g, '\\x7f');
}

/** YAML as Go's sigs.k8s.io/yaml writes it: keys sorted, lists not indented under their key. */
export function goYaml(value: Value): string {
  return stringify(value, { sortMapEntries: true, indentSeq: false, lineWidth: 0 });
}

/** JSON as Go's encoding/json writes it: map keys sorted, <, > and & escaped. */
function goJson(value: Value): string {
  const sorted = (v: Value): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (isMap(v))
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sorted(v[k] ?? null)]),
      );
    return v;
  };
  return JSON.stringify(sorted(value))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
}

function indent(n: number, s: string): string {
  const pad = ' '.repeat(Math.max(0, n));
  return pad + s.replace(/\n/g, `\n${pad}`);
}

function compare(name: string, a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw new TemplateError(`error calling ${name}: incompatible types for comparison`);
}

function basicEqual(a: Value, b: Value): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a === 'object' || typeof b === 'object')
    throw new TemplateError('error calling eq: non-comparable type');
  if (typeof a !== typeof b)
    throw new TemplateError('error calling eq: incompatible types for comparison');
  return a === b;
}

/** Go's fmt.Sprint: a space between operands when neither is a string. */
function sprint(args: Value[]): string {
  let out = '';
  args.forEach((a, i) => {
    const prev = args[i - 1];
    if (i > 0 && typeof a !== 'string' && typeof prev !== 'string') out += ' ';
    out += a === null ? '<nil>' : goString(a);
  });
  return out;
}

/** Go's Sprintf for the verbs templates use: %s %v %d %q %t %%, with width and zero padding. */
function sprintf(format: string, args: Value[]): string {
  let next = 0;
  return format.replace(
    /%([-0]?)(\d*)([svdqtx%])/g,
    (_m, flag: string, width: string, verb: string) => {
      if (verb === '%') return '%';
      const arg = args[next++];
      if (arg === undefined) return `%!${verb}(MISSING)`;
      let text: string;
      if (verb === 'd') {
        if (typeof arg !== 'number') return `%!d(${goType(arg)}=${str(arg)})`;
        text = String(Math.trunc(arg));
      } else if (verb === 'q') text = goQuote(str(arg));
      else if (verb === 'x') {
        if (typeof arg === 'number') text = Math.trunc(arg).toString(16);
        else text = Buffer.from(str(arg)).toString('hex');
      } else text = arg === null ? '%!v(<nil>)' : goString(arg);
      const w = Number(width || '0');
      if (text.length >= w) return text;
      if (flag === '-') return text.padEnd(w);
      return flag === '0' && verb === 'd' ? text.padStart(w, '0') : text.padStart(w);
    },
  );
}

function list(v: Value, name: string): Value[] {
  if (Array.isArray(v)) return v;
  if (v === null) return [];
  throw new TemplateError(`error calling ${name}: cannot find ${goType(v)} as a list`);
}

function index(args: Value[]): Value {
  const [first, ...keys] = args;
  let value = first;
  for (const key of keys) {
    if (Array.isArray(value)) {
      if (typeof key !== 'number' || key < 0 || key >= value.length)
        throw new TemplateError(`error calling index: index out of range: ${str(key ?? null)}`);
      value = value[key] ?? null;
    } else if (isMap(value ?? null)) {
      value = (value as { [k: string]: Value })[str(key ?? null)] ?? null;
    } else
      throw new TemplateError(
        `error calling index: can't index item of type ${goType(value ?? null)}`,
      );
  }
  return value ?? null;
}

const FUNCTIONS: Record<string, Fn> = {
  // Go's builtins
  and: (a) => a.find((v) => !isTrue(v)) ?? a[a.length - 1] ?? null,
  or: (a) => a.find((v) => isTrue(v)) ?? a[a.length - 1] ?? null,
  not: (a) => (arity('not', a, 1), !isTrue(a[0] ?? null)),
  eq: (a) => {
    if (a.length < 2) throw new TemplateError('missing argument for comparison');
    return a.slice(1).some((b) => basicEqual(a[0] ?? null, b));
  },
  ne: (a) => (arity('ne', a, 2), !basicEqual(a[0] ?? null, a[1] ?? null)),
  lt: (a) => (arity('lt', a, 2), compare('lt', a[0] ?? null, a[1] ?? null) < 0),
  le: (a) => (arity('le', a, 2), compare('le', a[0] ?? null, a[1] ?? null) <= 0),
  gt: (a) => (arity('gt', a, 2), compare('gt', a[0] ?? null, a[1] ?? null) > 0),
  ge: (a) => (arity('ge', a, 2), compare('ge', a[0] ?? null, a[1] ?? null) >= 0),
  len: (a) => {
    arity('len', a, 1);
    const v = a[0] ?? null;
    if (typeof v === 'string') return Buffer.byteLength(v);
    if (Array.isArray(v)) return v.length;
    if (isMap(v)) return Object.keys(v).length;
    throw new TemplateError(`error calling len: len of type ${goType(v)}`);
  },
  index: (a) => index(a),
  print: (a) => sprint(a),
  println: (a) => `${a.map((v) => (v === null ? '<nil>' : goString(v))).join(' ')}\n`,
  printf: (a) => {
    const [format, ...rest] = a;
    if (typeof format !== 'string') throw new TemplateError('printf needs a format string');
    return sprintf(format, rest);
  },
  // slim-sprig: defaults and flow
  default: (a) => {
    const [fallback = null, ...given] = a;
    const value = given[0] ?? null;
    return given.length === 0 || isEmpty(value) ? fallback : value;
  },
  empty: (a) => (arity('empty', a, 1), isEmpty(a[0] ?? null)),
  coalesce: (a) => a.find((v) => !isEmpty(v)) ?? null,
  ternary: (a) => (arity('ternary', a, 3), isTrue(a[2] ?? null) ? (a[0] ?? null) : (a[1] ?? null)),
  required: (a) => {
    arity('required', a, 2);
    if (a[1] === null || a[1] === '') throw new TemplateError(str(a[0] ?? null));
    return a[1] ?? null;
  },
  fail: (a): Value => {
    throw new TemplateError(str(a[0] ?? null));
  },
  // strings
  quote: (a) =>
    a
      .filter((v) => v !== null)
      .map((v) => goQuote(str(v)))
      .join(' '),
  squote: (a) =>
    a
      .filter((v) => v !== null)
      .map((v) => `'${str(v)}'`)
      .join(' '),
  toString: (a: Value[]) => (arity('toString', a, 1), str(a[0] ?? null)),
  lower: (a) => (arity('lower', a, 1), str(a[0] ?? null).toLowerCase()),
  upper: (a) => (arity('upper', a, 1), str(a[0] ?? null).toUpperCase()),
  title: (a) => (
    arity('title', a, 1),
    str(a[0] ?? null).replace(
      /(^|[^\p{L}\p{N}_'])(\p{L})/gu,
      (_m, p: string, c: string) => p + c.toUpperCase(),
    )
  ),
  trim: (a) => (arity('trim', a, 1), str(a[0] ?? null).trim()),
  trimPrefix: (a) => {
    arity('trimPrefix', a, 2);
    const [prefix, s] = [str(a[0] ?? null), str(a[1] ?? null)];
    return prefix !== '' && s.startsWith(prefix) ? s.slice(prefix.length) : s;
  },
  trimSuffix: (a) => {
    arity('trimSuffix', a, 2);
    const [suffix, s] = [str(a[0] ?? null), str(a[1] ?? null)];
    return suffix !== '' && s.endsWith(suffix) ? s.slice(0, -suffix.length) : s;
  },
  replace: (a) => (
    arity('replace', a, 3),
    str(a[2] ?? null)
      .split(str(a[0] ?? null))
      .join(str(a[1] ?? null))
  ),
  trunc: (a) => {
    arity('trunc', a, 2);
    const [n, s] = [toInt(a[0] ?? null), str(a[1] ?? null)];
    if (n >= 0) return s.length > n ? s.slice(0, n) : s;
    return s.length + n > 0 ? s.slice(s.length + n) : s;
  },
  contains: (a) => (arity('contains', a, 2), str(a[1] ?? null).includes(str(a[0] ?? null))),
  hasPrefix: (a) => (arity('hasPrefix', a, 2), str(a[1] ?? null).startsWith(str(a[0] ?? null))),
  hasSuffix: (a) => (arity('hasSuffix', a, 2), str(a[1] ?? null).endsWith(str(a[0] ?? null))),
  repeat: (a) => (
    arity('repeat', a, 2),
    str(a[1] ?? null).repeat(Math.max(0, Math.min(toInt(a[0] ?? null), 10_000)))
  ),
  indent: (a) => (arity('indent', a, 2), indent(toInt(a[0] ?? null), str(a[1] ?? null))),
  nindent: (a) => (arity('nindent', a, 2), `\n${indent(toInt(a[0] ?? null), str(a[1] ?? null))}`),
  join: (a) => (
    arity('join', a, 2),
    list(a[1] ?? null, 'join')
      .map(str)
      .join(str(a[0] ?? null))
  ),
  splitList: (a) => (arity('splitList', a, 2), str(a[1] ?? null).split(str(a[0] ?? null))),
  sha256sum: (a) => (
    arity('sha256sum', a, 1),
    createHash('sha256')
      .update(str(a[0] ?? null))
      .digest('hex')
  ),
  b64enc: (a) => (arity('b64enc', a, 1), Buffer.from(str(a[0] ?? null)).toString('base64')),
  // conversions and data
  int: (a) => (arity('int', a, 1), toInt(a[0] ?? null)),
  int64: (a) => (arity('int64', a, 1), toInt(a[0] ?? null)),
  toYaml: (a) => (arity('toYaml', a, 1), goYaml(a[0] ?? null).replace(/\n$/, '')),
  toJson: (a) => (arity('toJson', a, 1), goJson(a[0] ?? null)),
  list: (a) => [...a],
  dict: (a) => {
    const out: { [k: string]: Value } = {};
    for (let i = 0; i < a.length; i += 2) out[str(a[i] ?? null)] = a[i + 1] ?? null;
    return out;
  },
  get: (a) => {
    arity('get', a, 2);
    const m = a[0] ?? null;
    if (!isMap(m)) throw new TemplateError(`error calling get: not a map`);
    const v = m[str(a[1] ?? null)];
    if (v instanceof Unknown) throw new TemplateUnsupported(v.what);
    return v === undefined ? '' : v;
  },
  hasKey: (a) => {
    arity('hasKey', a, 2);
    const m = a[0] ?? null;
    return isMap(m) && Object.hasOwn(m, str(a[1] ?? null));
  },
  first: (a) => (arity('first', a, 1), list(a[0] ?? null, 'first')[0] ?? null),
  last: (a) => {
    arity('last', a, 1);
    const l = list(a[0] ?? null, 'last');
    return l[l.length - 1] ?? null;
  },
  has: (a) => (arity('has', a, 2), list(a[1] ?? null, 'has').some((v) => v === a[0])),
  add: (a) => a.reduce<number>((sum, v) => sum + toInt(v), 0),
  sub: (a) => (arity('sub', a, 2), toInt(a[0] ?? null) - toInt(a[1] ?? null)),
  mul: (a) => a.reduce<number>((p, v) => p * toInt(v), 1),
  div: (a) => {
    arity('div', a, 2);
    const d = toInt(a[1] ?? null);
    if (d === 0) throw new TemplateError('error calling div: integer divide by zero');
    return Math.trunc(toInt(a[0] ?? null) / d);
  },
  mod: (a) => {
    arity('mod', a, 2);
    const d = toInt(a[1] ?? null);
    if (d === 0) throw new TemplateError('error calling mod: integer divide by zero');
    return toInt(a[0] ?? null) % d;
  },
};

export function callFunction(name: string, args: Value[], _context: FunctionContext): Value {
  const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
  if (!fn) throw new TemplateUnsupported(`\`${name}\``);
  for (const arg of args) if (arg instanceof Unknown) throw new TemplateUnsupported(arg.what);
  return fn(args);
}
