// What each `${v<op>...}` operator does to a set variable's value: casing, trimming, substrings
// and replacement, with envsubst's byte-counting and its departures from bash. Knows nothing of
// lookup or strict mode (eval.ts).
import { decodeRune, encodeRune, runesOf } from './bytes.js';
import { trimPrefix, trimSuffix } from './glob.js';
import { SubstitutionError } from './substitution-error.js';

const ARGUMENT_FREE = new Set([',', ',,', '^', '^^']);
const VALUE_OPERATORS = new Set(['#', '##', '%', '%%', ':', '/', '//', '/#', '/%']);

/**
 * Whether applyOperator's result depends on its arguments: patterns, offsets and
 * replacements always do; a default-style operator's only when it falls back on them.
 */
export function usesArguments(op: string, value: string, args: readonly string[]): boolean {
  if (ARGUMENT_FREE.has(op)) return false;
  if (VALUE_OPERATORS.has(op)) return args.length > 0;
  return value === '' && args.length > 0;
}

export function applyOperator(op: string, value: string, args: string[]): string {
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

const MAX_INT64 = 9223372036854775807n;

/** Go's strconv.Atoi: optional sign, decimal digits, must fit in int64. */
function parseGoInt(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const big = BigInt(text);
  if (big > MAX_INT64 || big < -MAX_INT64 - 1n) return undefined;
  return big;
}

// Unparsable offsets or lengths (including `${v: -1}` with its space) return the whole value.
// Offsets are exact (bigint): Go's int64 arithmetic decides what happens near its limits.
function substring(value: string, posText: string, lenText: string | undefined): string {
  const size = BigInt(value.length);
  let pos = parseGoInt(posText);
  if (pos === undefined) return value;
  if (pos < 0n) pos = pos + size < 0n ? 0n : pos + size;
  if (lenText === undefined) return pos < size ? value.slice(Number(pos)) : '';
  const length = parseGoInt(lenText);
  if (length === undefined) return value;
  if (length < 0n) {
    const end = size + length;
    return end < pos ? '' : value.slice(Number(pos), Number(end));
  }
  // Go adds them as int64: past its range the sum wraps negative and the slice panics, which
  // kustomize-controller reports as a failed reconciliation.
  if (pos + length > MAX_INT64) {
    throw new SubstitutionError('substring offset plus length overflows int64 (envsubst panics)');
  }
  if (pos + length >= size) return pos < size ? value.slice(Number(pos)) : '';
  return value.slice(Number(pos), Number(pos + length));
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

/**
 * The length of `${v//pattern/repl}` without making it: the one operator whose result can
 * be many times the length of its inputs (an empty pattern puts `repl` around every rune).
 */
export function replaceAllLength(value: string, pattern: string, repl: string): number {
  let count = 0;
  if (pattern === '') {
    for (let i = 0; i < value.length; i += decodeRune(value, i)[1]) count += 1;
    return value.length + (count + 1) * repl.length;
  }
  for (let at = value.indexOf(pattern); at >= 0; at = value.indexOf(pattern, at + pattern.length)) {
    count += 1;
  }
  return value.length + count * (repl.length - pattern.length);
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
