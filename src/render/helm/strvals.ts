/**
 * Helm's `--set` syntax (helm.sh/helm/v4 pkg/strvals), which Flux uses to place a valuesFrom
 * value at a targetPath: `a.b[0].c=v,d={x,y}` with backslash escapes. Parsing writes into an
 * existing tree in place, as Helm does, because Flux's composition depends on that sharing.
 */
import { FluxlensError } from '../../errors.js';

/** What went wrong, in words that never quote the expression (it may hold a Secret value). */
export type StrvalsReason =
  | 'key has no value'
  | 'invalid list index'
  | 'existing value is not a map or list'
  | "list must terminate with '}'"
  | 'unexpected data after a list index'
  | 'nested too deeply';

export class StrvalsError extends FluxlensError {
  /** The message is Helm's and may quote keys; `reason` never quotes anything. */
  constructor(
    readonly reason: StrvalsReason,
    message: string,
  ) {
    super('invalid-content', message);
    this.name = 'StrvalsError';
  }
}

type Tree = Record<string, unknown>;

/** Helm's limits: list indices up to 65536, dotted names up to 30 levels. */
const MAX_INDEX = 65536;
const MAX_NESTED_NAME_LEVEL = 30;
const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

const KEY_STOP = new Set(['=', '[', ',', '.']);
const INDEX_STOP = new Set([']']);
const ITEM_STOP = new Set(['[', '.', '=']);
const VALUE_STOP = new Set([',']);
const LIST_STOP = new Set([',', '}']);

/** A parse step either consumed a pair (`more`) or ran into the end of the input. */
type Step = 'more' | 'end';

/** Parses `expr` into `into`; `asString` keeps every value a string, as `--set-string` does. */
export function parseSet(expr: string, into: Record<string, unknown>, asString: boolean): void {
  const parser = new Parser(expr, asString);
  while (parser.key(into, 0) === 'more');
}

export function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property, so a key such as `__proto__` stays plain data. */
export function put(tree: Tree, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(tree, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    tree[key] = value;
  }
}

function own(tree: Tree, key: string): { value: unknown } | undefined {
  return Object.hasOwn(tree, key) ? { value: tree[key] } : undefined;
}

function fail(reason: StrvalsReason, message: string): never {
  throw new StrvalsError(reason, message);
}

function asTree(value: unknown, key: string): Tree {
  if (isTree(value)) return value;
  return fail('existing value is not a map or list', `unable to parse key: "${key}" is not a map`);
}

function asList(value: unknown, key: string): unknown[] {
  if (Array.isArray(value)) return value;
  return fail('existing value is not a map or list', `unable to parse key: "${key}" is not a list`);
}

/** Writes in place when the index exists; grows into a new, null-padded list otherwise. */
function setIndex(list: unknown[], index: number, value: unknown): unknown[] {
  if (index < 0) fail('invalid list index', `negative ${index} index not allowed`);
  if (index > MAX_INDEX) {
    fail(
      'invalid list index',
      `index of ${index} is greater than maximum supported index of ${MAX_INDEX}`,
    );
  }
  const out =
    list.length <= index ? [...list, ...Array<null>(index + 1 - list.length).fill(null)] : list;
  out[index] = value;
  return out;
}

/** Go's strings.EqualFold against a lower-case ASCII word ('ſ' folds to 's'). */
function equalFold(text: string, word: string): boolean {
  if (text.length !== word.length) return false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] === 'ſ' ? 's' : text[i]?.toLowerCase();
    if (char !== word[i]) return false;
  }
  return true;
}

/** Helm's typedVal: true/false/null in any case, int64 without a leading zero; never floats. */
function typedValue(text: string): unknown {
  if (equalFold(text, 'true')) return true;
  if (equalFold(text, 'false')) return false;
  if (equalFold(text, 'null')) return null;
  if (text === '0') return 0;
  if (!text.startsWith('0') && /^[-+]?[0-9]+$/.test(text)) {
    const value = BigInt(text);
    if (value < MIN_INT64 || value > MAX_INT64) return text;
    // Past 2^53 this is the nearest double, as Helm itself holds it once the values have
    // gone through a values file; `+ 0` turns -0 into 0.
    return Number(value) + 0;
  }
  return text;
}

/** Go's strconv.Atoi: optional sign, ASCII digits, int64 range. */
function parseIndex(text: string): number {
  if (!/^[-+]?[0-9]+$/.test(text)) {
    fail(
      'invalid list index',
      `error parsing index: strconv.Atoi: parsing "${text}": invalid syntax`,
    );
  }
  const value = BigInt(text);
  if (value < MIN_INT64 || value > MAX_INT64) {
    fail(
      'invalid list index',
      `error parsing index: strconv.Atoi: parsing "${text}": value out of range`,
    );
  }
  // Anything past MAX_INDEX fails later, so clamping keeps the number exact enough.
  return Number(value);
}

class Parser {
  readonly #chars: string[];
  readonly #asString: boolean;
  #pos = 0;

  constructor(expr: string, asString: boolean) {
    this.#chars = Array.from(expr);
    this.#asString = asString;
  }

  #read(): string | undefined {
    const char = this.#chars[this.#pos];
    if (char !== undefined) this.#pos++;
    return char;
  }

  /** Reads up to a stop character, unescaping `\x`; `stop` is undefined at the end. */
  #until(stops: ReadonlySet<string>): { text: string; stop: string | undefined } {
    let text = '';
    for (;;) {
      const char = this.#read();
      if (char === undefined || stops.has(char)) return { text, stop: char };
      if (char === '\\') {
        const next = this.#read();
        if (next === undefined) return { text, stop: undefined };
        text += next;
      } else {
        text += char;
      }
    }
  }

  #value(text: string): unknown {
    return this.#asString ? text : typedValue(text);
  }

  /** A `{a,b}` list after `=`; 'end' for an empty value, undefined when no `{` follows. */
  #list(): unknown[] | 'end' | undefined {
    const first = this.#read();
    if (first === undefined) return 'end';
    if (first !== '{') {
      this.#pos--;
      return undefined;
    }
    const list: unknown[] = [];
    for (;;) {
      const { text, stop } = this.#until(LIST_STOP);
      if (stop === undefined) fail("list must terminate with '}'", "list must terminate with '}'");
      list.push(this.#value(text));
      if (stop === '}') {
        if (this.#chars[this.#pos] === ',') this.#pos++;
        return list;
      }
    }
  }

  /** The value after `=`: a list, an empty string at the end, or a scalar up to `,`. */
  #assigned(): { value: unknown; step: Step } {
    const list = this.#list();
    if (list === 'end') return { value: '', step: 'end' };
    return { value: list ?? this.#value(this.#until(VALUE_STOP).text), step: 'more' };
  }

  /** An index after `[`; undefined when the input ends before `]`, which Helm 4 ignores. */
  #index(): number | undefined {
    const { text, stop } = this.#until(INDEX_STOP);
    return stop === undefined ? undefined : parseIndex(text);
  }

  key(data: Tree, level: number): Step {
    const { text: key, stop } = this.#until(KEY_STOP);
    switch (stop) {
      case undefined:
        if (key === '') return 'end';
        return fail('key has no value', `key "${key}" has no value`);
      case '=': {
        // An empty value at the very end is set, and also ends the parse, so a map
        // holding only it (`a.=`) is no error.
        const { value, step } = this.#assigned();
        if (key !== '') put(data, key, value);
        return step;
      }
      case ',':
        return fail('key has no value', `key "${key}" has no value (cannot end with ,)`);
      case '[':
        return this.#keyIndex(data, key, level);
      default:
        return this.#keyMap(data, key, level + 1);
    }
  }

  #keyIndex(data: Tree, key: string, level: number): Step {
    const index = this.#index();
    if (index === undefined) return 'end';
    const existing = own(data, key);
    const [list, step] = this.#item(existing ? asList(existing.value, key) : [], index, level);
    if (key !== '') put(data, key, list);
    return step;
  }

  #keyMap(data: Tree, key: string, level: number): Step {
    if (level > MAX_NESTED_NAME_LEVEL) {
      fail(
        'nested too deeply',
        `value name nested level is greater than maximum supported nested level of ${MAX_NESTED_NAME_LEVEL}`,
      );
    }
    const existing = own(data, key);
    const inner = existing ? asTree(existing.value, key) : {};
    const step = this.key(inner, level);
    const empty = Object.keys(inner).length === 0;
    if (step === 'more' && empty) fail('key has no value', `key map "${key}" has no value`);
    if (!empty && key !== '') put(data, key, inner);
    return step;
  }

  /** What follows `list[index]`: `=value`, another `[i]`, or `.key`. */
  #item(list: unknown[], index: number, level: number): [unknown[], Step] {
    if (index < 0) fail('invalid list index', `negative ${index} index not allowed`);
    const { text, stop } = this.#until(ITEM_STOP);
    if (text.length > 0) {
      fail(
        'unexpected data after a list index',
        `unexpected data at end of array index: "${text}"`,
      );
    }
    if (stop === undefined) return [list, 'end'];
    if (stop === '=') return [setIndex(list, index, this.#assigned().value), 'more'];
    if (stop === '[') {
      const next = this.#index();
      if (next === undefined) return [list, 'end'];
      const existing = index < list.length ? list[index] : undefined;
      const current =
        existing === undefined || existing === null ? [] : asList(existing, String(index));
      const [inner, step] = this.#item(current, next, level);
      return step === 'end' ? [list, step] : [setIndex(list, index, inner), step];
    }
    let inner: Tree = {};
    if (index < list.length) {
      const existing = list[index];
      if (isTree(existing)) inner = existing;
      else list[index] = inner;
    }
    const step = this.key(inner, level);
    return step === 'end' ? [list, step] : [setIndex(list, index, inner), step];
  }
}
