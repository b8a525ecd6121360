// Glob matching for the trim operators (envsubst's fork of Go's path.Match: `*` also matches
// `/`, and a pattern error is only noticed when matching reaches the broken part), and the
// prefix and suffix trimming built on it.
import { decodeRune, encodeRune, RUNE_ERROR, runesOf } from './bytes.js';
import { FluxlensError } from '../../errors.js';

class BadPatternError extends FluxlensError {
  constructor() {
    super('invalid-content', 'bad pattern');
  }
}

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
export function trimPrefix(value: string, pattern: string, longest: boolean): string {
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
export function trimSuffix(value: string, pattern: string, longest: boolean): string {
  return reverseRunes(trimPrefix(reverseRunes(value), reverseRunes(pattern), longest));
}
