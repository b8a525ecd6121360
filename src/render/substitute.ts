/**
 * Flux post-build variable substitution (kustomize-controller `spec.postBuild`).
 *
 * Mirrors github.com/fluxcd/pkg/envsubst v1.9.0 and fluxcd/pkg/kustomize v1.44.0. The envsubst
 * dialect is NOT bash: several operators differ from their shell namesakes, and the differences
 * are deliberate here because the goal is to predict what the cluster will render.
 */
import { parse, stringify, YAMLParseError } from 'yaml';
import type { ScalarTag, Tags } from 'yaml';
import { stringTag } from 'yaml/util';

export type VarSource = { kind: 'ConfigMap' | 'Secret'; name: string; optional: boolean };

export class SubstitutionError extends Error {
  readonly code = 'substitution';
  /** The variable a strict-mode failure is about (a name, never a value). */
  readonly variable: string | undefined;

  constructor(message: string, options: { variable?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SubstitutionError';
    this.variable = options.variable;
  }
}

// ---------------------------------------------------------------------------------------------
// Byte strings. Go indexes strings by byte, so `${#v}`, `${v:1:2}` and the trim operators count
// UTF-8 bytes. Evaluation therefore runs on "byte strings": JS strings whose every char is one
// byte (0-255). All syntax characters are ASCII, so parsing works unchanged on them.
// ---------------------------------------------------------------------------------------------

const RUNE_ERROR = 0xfffd;

function toBytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

function fromBytes(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function isValidUtf8(bytes: string): boolean {
  try {
    strictUtf8.decode(Buffer.from(bytes, 'latin1'));
    return true;
  } catch {
    return false;
  }
}

/** Like Go's utf8.DecodeRuneInString: invalid input yields [U+FFFD, 1]. */
function decodeRune(bytes: string, at: number): [rune: number, width: number] {
  const b0 = bytes.charCodeAt(at);
  if (Number.isNaN(b0)) return [RUNE_ERROR, 0];
  if (b0 < 0x80) return [b0, 1];
  let width: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) width = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) width = 3;
  else if (b0 >= 0xf0 && b0 <= 0xf4) width = 4;
  else return [RUNE_ERROR, 1];
  // The tighter bounds on the second byte reject overlong forms and surrogates, as Go does.
  if (b0 === 0xe0) lo = 0xa0;
  else if (b0 === 0xed) hi = 0x9f;
  else if (b0 === 0xf0) lo = 0x90;
  else if (b0 === 0xf4) hi = 0x8f;
  let rune = b0 & (width === 2 ? 0x1f : width === 3 ? 0x0f : 0x07);
  for (let i = 1; i < width; i++) {
    const b = bytes.charCodeAt(at + i);
    const min = i === 1 ? lo : 0x80;
    const max = i === 1 ? hi : 0xbf;
    if (Number.isNaN(b) || b < min || b > max) return [RUNE_ERROR, 1];
    rune = (rune << 6) | (b & 0x3f);
  }
  return [rune, width];
}

function encodeRune(rune: number): string {
  return toBytes(String.fromCodePoint(rune));
}

function runesOf(bytes: string): number[] {
  const runes: number[] = [];
  for (let i = 0; i < bytes.length; ) {
    const [rune, width] = decodeRune(bytes, i);
    runes.push(rune);
    i += width;
  }
  return runes;
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

type TemplateNode = { kind: 'text'; value: string } | Expr;
/** `${param}` with an operator ('' for a plain reference) and its already-split arguments. */
type Expr = { kind: 'expr'; param: string; op: string; args: TemplateNode[] };

const BAD_SUBSTITUTION = 'bad substitution';
const MISSING_CLOSING_BRACE = 'missing closing brace';
const BAD_VARIABLE_NAME = 'unable to parse variable name';
const BAD_FUNC_ARGUMENT = 'unable to parse substitution within function';

type Accept = (char: string) => boolean;

const IDENT_CHAR = /^[\p{L}\p{Nd}_]$/u;
const acceptNotClosing: Accept = (c) => c !== '}';
const acceptNotColonOrClosing: Accept = (c) => c !== ':' && c !== '}';
const acceptNotSlash: Accept = (c) => c !== '/';

/** Only replace arguments know escapes (`$$`, `\/`, `\\`); other arguments take text as is. */
type Escapes = 'none' | 'replace';

class Parser {
  private readonly src: string;
  private pos = 0;

  constructor(src: string) {
    this.src = src;
  }

  /** Top-level text: `${` opens an expression, `$$` is a literal `$`, anything else is kept. */
  parseTemplate(): TemplateNode[] {
    const nodes: TemplateNode[] = [];
    let text = '';
    while (this.pos < this.src.length) {
      const dollar = this.src.indexOf('$', this.pos);
      const stop = dollar < 0 ? this.src.length : dollar;
      text += this.src.slice(this.pos, stop);
      this.pos = stop;
      if (dollar < 0) break;
      if (this.atOpen()) {
        if (text !== '') nodes.push({ kind: 'text', value: text });
        text = '';
        this.pos += 2;
        nodes.push(this.parseExpr());
      } else {
        // The second `$` of a pair is consumed too, so `$${x}` leaves `${x}` untouched.
        text += '$';
        this.pos += this.peek(1) === '$' ? 2 : 1;
      }
    }
    if (text !== '') nodes.push({ kind: 'text', value: text });
    return nodes;
  }

  private peek(offset = 0): string {
    return this.src.charAt(this.pos + offset);
  }

  /** True when the character at `offset` is one of `chars` (never at end of input). */
  private peekIn(chars: string, offset = 0): boolean {
    const c = this.peek(offset);
    return c !== '' && chars.includes(c);
  }

  private atOpen(): boolean {
    return this.peek() === '$' && this.peek(1) === '{';
  }

  private escapeAt(escapes: Escapes): boolean {
    if (escapes === 'none') return false;
    const next = this.peek(1);
    return this.peek() === '$'
      ? next === '$'
      : this.peek() === '\\' && (next === '/' || next === '\\');
  }

  /**
   * Reads a run of accepted characters, stopping before `${`. An escape pair contributes its
   * second character even when `accept` would refuse it (that is how `\/` gets into a pattern).
   * Returns undefined when not even the first character is usable.
   */
  private scanRun(accept: Accept, escapes: Escapes): string | undefined {
    let out = '';
    while (this.pos < this.src.length && !this.atOpen()) {
      if (this.escapeAt(escapes)) {
        out += this.peek(1);
        this.pos += 2;
      } else if (accept(this.peek())) {
        out += this.peek();
        this.pos += 1;
      } else break;
    }
    return out === '' ? undefined : out;
  }

  private scanIdent(): string {
    const start = this.pos;
    while (this.pos < this.src.length) {
      const [rune, width] = decodeRune(this.src, this.pos);
      if (!IDENT_CHAR.test(String.fromCodePoint(rune))) break;
      this.pos += width;
    }
    return this.src.slice(start, this.pos);
  }

  /** Consumes up to `max` characters from `chars` (max 0 = unlimited). */
  private scanOperator(chars: string, max: number): string {
    const start = this.pos;
    while (this.peekIn(chars) && (max === 0 || this.pos - start < max)) {
      this.pos += 1;
    }
    return this.src.slice(start, this.pos);
  }

  private expectClose(message = BAD_SUBSTITUTION): void {
    if (this.peek() !== '}') throw new SubstitutionError(message);
    this.pos += 1;
  }

  /** One argument: a nested `${...}` or a single run of text, never both. */
  private parseParam(accept: Accept, escapes: Escapes): TemplateNode {
    if (this.atOpen()) {
      this.pos += 2;
      return this.parseExpr();
    }
    const text = this.scanRun(accept, escapes);
    if (text === undefined) throw new SubstitutionError(BAD_FUNC_ARGUMENT);
    return { kind: 'text', value: text };
  }

  /** Parses what follows `${`, up to and including the closing brace. */
  private parseExpr(): Expr {
    if (this.peek() === '#') return this.parseLength();
    const param = this.scanIdent();
    if (param === '') throw new SubstitutionError(BAD_VARIABLE_NAME);
    const next = this.peek();
    if (next === ':') {
      // `${v:-1}` is a default, not a negative offset: bash needs `${v: -1}` for that too.
      if (this.peekIn('=-?+', 1)) return this.parseDefault(param);
      // envsubst steps back by the width of the character after the colon rather than the
      // colon's, so a multi-byte character (or the end of input) there is always rejected.
      const width = decodeRune(this.src, this.pos + 1)[1];
      if (width !== 1) throw new SubstitutionError(BAD_SUBSTITUTION);
      return this.parseSubstring(param);
    }
    if (next === '=') return this.parseDefault(param);
    if (next === ',' || next === '^') return this.parseCasing(param);
    if (next === '/') return this.parseReplace(param);
    if (next === '#' || next === '%') return this.parseTrim(param, next);
    this.expectClose(MISSING_CLOSING_BRACE);
    return { kind: 'expr', param, op: '', args: [] };
  }

  private parseLength(): Expr {
    this.pos += 1;
    const param = this.scanIdent();
    if (param === '') throw new SubstitutionError(BAD_SUBSTITUTION);
    this.expectClose();
    return { kind: 'expr', param, op: '#', args: [] };
  }

  /** Defaults are the one place where text and nested expressions may be concatenated. */
  private parseDefault(param: string): Expr {
    const op = this.peek() === ':' ? this.src.slice(this.pos, this.pos + 2) : '=';
    this.pos += op.length;
    const args: TemplateNode[] = [];
    while (this.peek() !== '}') args.push(this.parseParam(acceptNotClosing, 'none'));
    this.pos += 1;
    return { kind: 'expr', param, op, args };
  }

  private parseSubstring(param: string): Expr {
    this.pos += 1;
    const args = [this.parseParam(acceptNotColonOrClosing, 'none')];
    if (this.peek() === '}') {
      this.pos += 1;
      return { kind: 'expr', param, op: ':', args };
    }
    // Go's scanner takes any run of colons as the separator, so `${v:1::2}` means `${v:1:2}`.
    if (this.scanOperator(':', 0) === '') throw new SubstitutionError(BAD_SUBSTITUTION);
    args.push(this.parseParam(acceptNotClosing, 'none'));
    this.expectClose();
    return { kind: 'expr', param, op: ':', args };
  }

  private parseCasing(param: string): Expr {
    const op = this.scanOperator(',^', 2);
    this.expectClose();
    return { kind: 'expr', param, op, args: [] };
  }

  private parseTrim(param: string, char: '#' | '%'): Expr {
    const op = this.scanOperator(char, 2);
    const args = [this.parseParam(acceptNotClosing, 'none')];
    this.expectClose();
    return { kind: 'expr', param, op, args };
  }

  private parseReplace(param: string): Expr {
    this.pos += 1;
    const op = '/' + (this.peekIn('/#%') ? this.src.charAt(this.pos++) : '');
    const args = [this.parseParam(acceptNotSlash, 'replace')];
    // As with substrings, a run of slashes is one separator: `${v/a//b}` replaces a with b.
    if (this.scanOperator('/', 0) === '') throw new SubstitutionError(BAD_SUBSTITUTION);
    if (this.peek() !== '}') args.push(this.parseParam(acceptNotClosing, 'replace'));
    this.expectClose();
    return { kind: 'expr', param, op, args };
  }
}

// ---------------------------------------------------------------------------------------------
// Glob matching for the trim operators (envsubst's fork of Go's path.Match: `*` also matches
// `/`, and a pattern error is only noticed when matching reaches the broken part).
// ---------------------------------------------------------------------------------------------

class BadPatternError extends Error {}

function splitChunk(pattern: string): { star: boolean; chunk: string; rest: string } {
  let p = pattern;
  let star = false;
  while (p.startsWith('*')) {
    p = p.slice(1);
    star = true;
  }
  let inRange = false;
  let i = 0;
  for (; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      if (i + 1 < p.length) i++;
    } else if (c === '[') inRange = true;
    else if (c === ']') inRange = false;
    else if (c === '*' && !inRange) break;
  }
  return { star, chunk: p.slice(0, i), rest: p.slice(i) };
}

/** One possibly escaped character inside a `[...]` class. */
function classChar(chunk: string): [rune: number, rest: string] {
  let c = chunk;
  if (c === '' || c[0] === '-' || c[0] === ']') throw new BadPatternError();
  if (c[0] === '\\') {
    c = c.slice(1);
    if (c === '') throw new BadPatternError();
  }
  const [rune, width] = decodeRune(c, 0);
  const rest = c.slice(width);
  if ((rune === RUNE_ERROR && width === 1) || rest === '') throw new BadPatternError();
  return [rune, rest];
}

/** Matches a `[...]` class (chunk starts after `[`) against `rune`; returns the chunk after `]`. */
function matchClass(chunk: string, rune: number): { matched: boolean; rest: string } {
  let c = chunk;
  const negated = c.startsWith('^');
  if (negated) c = c.slice(1);
  let inClass = false;
  for (let ranges = 0; ; ranges++) {
    if (ranges > 0 && c.startsWith(']')) return { matched: inClass !== negated, rest: c.slice(1) };
    let lo: number;
    let hi: number;
    [lo, c] = classChar(c);
    hi = lo;
    if (c.startsWith('-')) [hi, c] = classChar(c.slice(1));
    if (lo <= rune && rune <= hi) inClass = true;
  }
}

/** Matches a star-free chunk at the start of `name`; returns what is left, or undefined. */
function matchChunk(chunk: string, name: string): string | undefined {
  let c = chunk;
  let s = name;
  while (c !== '') {
    if (s === '') return undefined;
    if (c[0] === '[' || c[0] === '?') {
      const [rune, width] = decodeRune(s, 0);
      s = s.slice(width);
      if (c[0] === '?') {
        c = c.slice(1);
        continue;
      }
      const { matched, rest } = matchClass(c.slice(1), rune);
      if (!matched) return undefined;
      c = rest;
      continue;
    }
    if (c[0] === '\\') {
      c = c.slice(1);
      if (c === '') throw new BadPatternError();
    }
    if (c[0] !== s[0]) return undefined;
    c = c.slice(1);
    s = s.slice(1);
  }
  return s;
}

function globMatch(pattern: string, name: string): boolean {
  let p = pattern;
  let s = name;
  next: while (p !== '') {
    const { star, chunk, rest } = splitChunk(p);
    p = rest;
    if (star && chunk === '') return true;
    const here = matchChunk(chunk, s);
    if (here !== undefined && (here === '' || p !== '')) {
      s = here;
      continue;
    }
    if (star) {
      for (let i = 0; i < s.length; i++) {
        const after = matchChunk(chunk, s.slice(i + 1));
        if (after === undefined || (p === '' && after !== '')) continue;
        s = after;
        continue next;
      }
    }
    return false;
  }
  return s === '';
}

// Only non-empty prefixes are tried, so `${v#*}` drops one byte where bash would drop nothing.
function trimPrefix(value: string, pattern: string, longest: boolean): string {
  let cut = 0;
  try {
    for (let end = value.length; end > 0; end--) {
      if (!globMatch(pattern, value.slice(0, end))) continue;
      cut = end;
      if (longest) break;
    }
  } catch (error) {
    if (error instanceof BadPatternError) return value;
    throw error;
  }
  return value.slice(cut);
}

function reverseRunes(bytes: string): string {
  return runesOf(bytes).reverse().map(encodeRune).join('');
}

// Suffix trimming reverses both value and pattern, so classes like `[0-9]` and escapes like
// `\*` come out backwards and stop matching; that is envsubst's behaviour, kept on purpose.
function trimSuffix(value: string, pattern: string, longest: boolean): string {
  return reverseRunes(trimPrefix(reverseRunes(value), reverseRunes(pattern), longest));
}

// ---------------------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------------------

type ByteLookup = (name: string) => string | undefined;

/** Operators that supply their own fallback, so strict mode lets their variable be unset. */
const DEFAULT_OPERATORS = new Set(['-', '+', '=', '?', ':-', ':+', ':=', ':?']);

function evaluate(nodes: TemplateNode[], lookup: ByteLookup, strict: boolean): string {
  let out = '';
  for (const node of nodes) {
    out += node.kind === 'text' ? node.value : evaluateExpr(node, lookup, strict);
  }
  return out;
}

function evaluateExpr(expr: Expr, lookup: ByteLookup, strict: boolean): string {
  // Arguments are evaluated before the variable is consulted, so in strict mode a default that
  // mentions a missing variable fails even when the default would not be used.
  const args = expr.args.map((arg) => evaluate([arg], lookup, strict));
  const value = lookup(expr.param);
  if (value !== undefined) return applyOperator(expr.op, value, args);
  if (strict && !DEFAULT_OPERATORS.has(expr.op)) {
    const variable = fromBytes(expr.param);
    throw new SubstitutionError(`variable not set (strict mode): ${JSON.stringify(variable)}`, {
      variable,
    });
  }
  return applyOperator(expr.op, '', args);
}

function applyOperator(op: string, value: string, args: string[]): string {
  const [first, second] = args;
  switch (op) {
    case ',':
    case ',,':
    case '^':
    case '^^':
      return changeCase(value, op.startsWith('^'), op.length === 1);
    case '#':
      return first === undefined ? String(value.length) : trimPrefix(value, first, false);
    case '##':
      return trimPrefix(value, first ?? '', true);
    case '%':
    case '%%':
      return trimSuffix(value, first ?? '', op === '%%');
    case ':':
      return substring(value, first ?? '', second);
    case '/':
    case '//':
    case '/#':
    case '/%':
      return replace(op, value, first ?? '', second);
    default:
      // Every default-style operator (=, :=, :-, and even :+ and :?) and unknown casings such
      // as `,^` land here: the value if non-empty, else the concatenated arguments.
      return value === '' && args.length > 0 ? args.join('') : value;
  }
}

/** Go's unicode.ToUpper/ToLower map one rune to one rune; keep runes JS would expand. */
function caseRune(rune: number, upper: boolean): number {
  if (!upper && rune === 0x130) return 0x69;
  // Greek letters with ypogegrammeni expand in JS but have a one-rune uppercase in Go.
  if (upper && [0x1f80, 0x1f90, 0x1fa0].some((start) => rune >= start && rune < start + 8)) {
    return rune + 8;
  }
  if (upper && (rune === 0x1fb3 || rune === 0x1fc3 || rune === 0x1ff3)) return rune + 9;
  const char = String.fromCodePoint(rune);
  const mapped = upper ? char.toUpperCase() : char.toLowerCase();
  const cp = mapped.codePointAt(0);
  return cp !== undefined && String.fromCodePoint(cp) === mapped ? cp : rune;
}

function changeCase(value: string, upper: boolean, firstOnly: boolean): string {
  if (value === '') return value;
  if (firstOnly) {
    const [rune, width] = decodeRune(value, 0);
    return encodeRune(caseRune(rune, upper)) + value.slice(width);
  }
  return runesOf(value)
    .map((rune) => encodeRune(caseRune(rune, upper)))
    .join('');
}

/** Go's strconv.Atoi: optional sign, decimal digits, must fit in int64. */
function parseGoInt(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const big = BigInt(text);
  if (big > 9223372036854775807n || big < -9223372036854775808n) return undefined;
  return Number(big);
}

// Unparsable offsets or lengths (including `${v: -1}` with its space) return the whole value.
function substring(value: string, posText: string, lenText: string | undefined): string {
  let pos = parseGoInt(posText);
  if (pos === undefined) return value;
  if (pos < 0) pos = Math.max(0, value.length + pos);
  if (lenText === undefined) return pos < value.length ? value.slice(pos) : '';
  const length = parseGoInt(lenText);
  if (length === undefined) return value;
  if (length < 0) {
    const end = value.length + length;
    return end < pos ? '' : value.slice(pos, end);
  }
  if (pos + length >= value.length) return pos < value.length ? value.slice(pos) : '';
  return value.slice(pos, pos + length);
}

/** Inserts `repl` around every rune, as Go's strings.Replace does for an empty pattern. */
function replaceEmpty(value: string, repl: string): string {
  let out = repl;
  for (let i = 0; i < value.length; ) {
    const [, width] = decodeRune(value, i);
    out += value.slice(i, i + width) + repl;
    i += width;
  }
  return out;
}

// Replacement patterns are literal strings, not globs: `${v/*/x}` replaces an asterisk.
function replace(op: string, value: string, pattern: string, repl: string | undefined): string {
  if (op === '/#' || op === '/%') {
    // Without a replacement these leave the value alone instead of deleting the match.
    if (repl === undefined) return value;
    if (op === '/#') return value.startsWith(pattern) ? repl + value.slice(pattern.length) : value;
    return value.endsWith(pattern) ? value.slice(0, value.length - pattern.length) + repl : value;
  }
  const replacement = repl ?? '';
  if (op === '//') {
    return pattern === ''
      ? replaceEmpty(value, replacement)
      : value.split(pattern).join(replacement);
  }
  const at = value.indexOf(pattern);
  return at < 0 ? value : value.slice(0, at) + replacement + value.slice(at + pattern.length);
}

function expandBytes(input: string, lookup: ByteLookup, strict: boolean): string {
  const nodes = new Parser(input).parseTemplate();
  return evaluate(nodes, lookup, strict);
}

/** Evaluate Flux envsubst over a string. lookup returns undefined when a variable is unset. Throws SubstitutionError. */
export function envsubst(
  input: string,
  lookup: (name: string) => string | undefined,
  options: { strict: boolean },
): string {
  const byteLookup: ByteLookup = (name) => {
    const value = lookup(fromBytes(name));
    return value === undefined ? undefined : toBytes(value);
  };
  return fromBytes(expandBytes(toBytes(input), byteLookup, options.strict));
}

// ---------------------------------------------------------------------------------------------
// Variables
// ---------------------------------------------------------------------------------------------

const VAR_NAME_SOURCE = '^[_[:alpha:]][_[:alpha:][:digit:]]*$';
// Go's RE2 POSIX classes are ASCII-only, unlike the \p{L} letters the envsubst parser accepts.
const VAR_NAME = /^[_A-Za-z][_A-Za-z0-9]*$/;

function validateNames(names: Iterable<string>): void {
  for (const name of names) {
    if (!VAR_NAME.test(name)) {
      throw new SubstitutionError(`'${name}' var name is invalid, must match '${VAR_NAME_SOURCE}'`);
    }
  }
}

// Only LF is removed; a CRLF value keeps its CR, exactly as in kustomize-controller.
function stripNewlines(value: string): string {
  return value.replaceAll('\n', '');
}

/** Merge variables as Flux does: sources in order (later wins), then inline substitute (wins); strips newlines; validates names. */
export function collectVariables(input: {
  inline: Record<string, string> | undefined;
  sources: Array<{ ref: VarSource; data: Record<string, string> | undefined }>;
}): Record<string, string> {
  // A Map keeps keys such as `__proto__` (a valid variable name) as plain data.
  const merged = new Map<string, string>();
  for (const { ref, data } of input.sources) {
    if (data === undefined) {
      if (ref.optional) continue;
      throw new SubstitutionError(`substitute from '${ref.kind}/${ref.name}' error: not found`);
    }
    for (const [name, value] of Object.entries(data)) merged.set(name, stripNewlines(value));
  }
  for (const [name, value] of Object.entries(input.inline ?? {})) {
    merged.set(name, stripNewlines(value));
  }
  validateNames(merged.keys());
  return Object.fromEntries(merged);
}

// ---------------------------------------------------------------------------------------------
// Manifests
// ---------------------------------------------------------------------------------------------

const DISABLE_KEY = 'kustomize.toolkit.fluxcd.io/substitute';
const MAX_ALIAS_COUNT = 1000;

const INT_TAG = 'tag:yaml.org,2002:int';
const FLOAT_TAG = 'tag:yaml.org,2002:float';
const NON_FINITE_LITERAL = /^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/;

// Flux re-reads the substituted text with go-yaml v2, a YAML 1.1 reader: `yes`/`on`/`y` are
// booleans and `0777` is octal. It does not turn timestamps or base-60 numbers such as `10:30`
// into anything but strings, so those two 1.1 resolvers are removed. Go's ParseInt also takes
// `0o17` and upper-case prefixes (`0X1F`), which the 1.1 schema does not know.
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

/** Printable and free of double quotes, so Go would not have escaped anything. */
function isSingleQuotable(value: string): boolean {
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (char === '"' || code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0xfeff) {
      return false;
    }
  }
  return true;
}

// go-yaml v2 falls back to single quotes whenever a printable one-line string cannot be plain;
// the yaml package picks double quotes for strings holding an apostrophe. The quoting style
// decides how substituted text is read (`\n` is an escape only in double quotes), so follow Go.
const goQuotedString: ScalarTag = {
  ...stringTag,
  stringify(item, ctx, onComment, onChompKeep) {
    const out = stringTag.stringify?.(item, ctx, onComment, onChompKeep) ?? '';
    const value = String(item.value);
    return out.startsWith('"') && value.includes("'") && isSingleQuotable(value)
      ? `'${value.replaceAll("'", "''")}'`
      : out;
  },
};

/** Go's ParseFloat fails on out-of-range numbers such as `1e400`, and go-yaml keeps the text. */
function keepOverflowAsString(tag: ScalarTag): ScalarTag {
  return {
    ...tag,
    resolve: (text, onError, options) => {
      const value = tag.resolve(text, onError, options);
      const overflow = typeof value === 'number' && !Number.isFinite(value);
      return overflow && !NON_FINITE_LITERAL.test(text) ? text : value;
    },
  };
}

const yaml11Tags = (tags: Tags): Tags => [
  ...tags
    .filter(
      (tag) =>
        typeof tag === 'string' ||
        (tag.tag !== 'tag:yaml.org,2002:timestamp' && !('format' in tag && tag.format === 'TIME')),
    )
    .map((tag) => {
      if (typeof tag === 'string' || tag.collection !== undefined) return tag;
      if (tag.tag === stringTag.tag) return goQuotedString;
      return tag.tag === INT_TAG || tag.tag === FLOAT_TAG ? keepOverflowAsString(tag) : tag;
    }),
  goPrefixedInt,
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function metadataField(manifest: Record<string, unknown>, field: string): unknown {
  const metadata = manifest['metadata'];
  return isRecord(metadata) ? metadata[field] : undefined;
}

function isDisabled(manifest: Record<string, unknown>): boolean {
  return ['labels', 'annotations'].some((field) => {
    const map = metadataField(manifest, field);
    return isRecord(map) && Object.hasOwn(map, DISABLE_KEY) && map[DISABLE_KEY] === 'disabled';
  });
}

function describe(manifest: Record<string, unknown>): string {
  const kind = manifest['kind'];
  const name = metadataField(manifest, 'name');
  return `${typeof kind === 'string' ? kind : '<unknown kind>'}/${typeof name === 'string' ? name : '<unnamed>'}`;
}

function toYaml(manifest: Record<string, unknown>): string {
  // No folding, so a `${...}` never straddles a line; single quotes and literal blocks, as
  // go-yaml v2 prefers, so substituted text is read back with the same quoting rules.
  return stringify(manifest, {
    schema: 'yaml-1.1',
    customTags: yaml11Tags,
    lineWidth: 0,
    minContentWidth: 0,
    singleQuote: true,
    blockQuote: 'literal',
    aliasDuplicateObjects: false,
  });
}

/** Describes a YAML failure by code and position only: the source excerpt may hold secrets. */
function describeYamlFailure(error: unknown): string {
  if (error instanceof YAMLParseError) {
    const at = error.linePos?.[0];
    return at ? `${error.code} at line ${at.line}, column ${at.col}` : error.code;
  }
  return error instanceof Error ? error.name : 'unknown error';
}

/** sigs.k8s.io/yaml's key conversion: scalars become strings, anything else is an error. */
function jsonKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'boolean' || typeof key === 'bigint') return String(key);
  if (typeof key === 'number') {
    if (Number.isNaN(key)) return '.nan';
    if (!Number.isFinite(key)) return key > 0 ? '.inf' : '-.inf';
    return String(key);
  }
  throw new Error('unsupported map key');
}

/** Converts the Map-based parse result to JSON-shaped data, as Go's YAML-to-JSON step does. */
function toJsonShape(value: unknown): unknown {
  if (value instanceof Map) {
    const entries: Array<[string, unknown]> = [];
    for (const [key, item] of value) entries.push([jsonKey(key), toJsonShape(item)]);
    return Object.fromEntries(entries);
  }
  if (Array.isArray(value)) return value.map(toJsonShape);
  // JSON has no NaN or Infinity, so Go's json.Marshal rejects `.nan` and `.inf` values.
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('unsupported value');
  return value;
}

function fromYaml(text: string, where: string): Record<string, unknown> {
  const fail = (detail: string): SubstitutionError =>
    new SubstitutionError(`post build failed for '${where}': envsubst error: ${detail}`);
  if (!isValidUtf8(text)) throw fail('YAMLToJSON: substituted text is not valid UTF-8');
  // go-yaml treats a lone CR as a line break; it can only come from a substituted value
  // (a CRLF Secret keeps its CR), since the serialiser escapes CRs in existing strings.
  const source = fromBytes(text).replace(/\r\n?/g, '\n');
  let parsed: unknown;
  try {
    parsed = parse(source, {
      schema: 'yaml-1.1',
      customTags: yaml11Tags,
      merge: true,
      uniqueKeys: false,
      mapAsMap: true,
      logLevel: 'error',
      maxAliasCount: MAX_ALIAS_COUNT,
    });
  } catch (error) {
    // YAML errors quote the offending source line, which may hold a secret: keep only the code.
    throw fail(`YAMLToJSON: ${describeYamlFailure(error)}`);
  }
  let value: unknown;
  try {
    value = toJsonShape(parsed);
  } catch (error) {
    throw fail(`YAMLToJSON: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw fail('UnmarshalJSON: substituted object is not a mapping');
  return value;
}

/** Flux's wording, as kustomize-controller reports it for the object. */
function wrapForManifest(
  where: string,
  error: SubstitutionError,
  stage: string,
): SubstitutionError {
  const message = `post build failed for '${where}': envsubst error: ${stage}${error.message}`;
  const { variable } = error;
  return new SubstitutionError(
    message,
    variable === undefined ? { cause: error } : { cause: error, variable },
  );
}

/** Apply post-build substitution to one manifest (a plain JS object as parsed from YAML). Returns the new manifest, or the same object when substitution is disabled for it or there is nothing to do. */
export function substituteManifest(
  manifest: Record<string, unknown>,
  vars: Record<string, string>,
  options: { strict: boolean; always: boolean },
): Record<string, unknown> {
  if (isDisabled(manifest)) return manifest;
  const names = Object.keys(vars);
  if (names.length === 0 && !options.always) return manifest;
  const where = describe(manifest);
  try {
    validateNames(names);
  } catch (error) {
    throw wrapForManifest(where, error as SubstitutionError, '');
  }
  const text = toYaml(manifest);
  if (!text.includes('$')) return manifest;
  const lookup: ByteLookup = (name) => {
    const key = fromBytes(name);
    const value = Object.hasOwn(vars, key) ? vars[key] : undefined;
    return value === undefined ? undefined : toBytes(value);
  };
  let output: string;
  try {
    output = expandBytes(toBytes(text), lookup, options.strict);
  } catch (error) {
    if (!(error instanceof SubstitutionError)) throw error;
    throw wrapForManifest(where, error, 'variable substitution failed: ');
  }
  return fromYaml(output, where);
}
