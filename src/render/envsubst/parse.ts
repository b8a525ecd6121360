// Parses envsubst templates (fluxcd/pkg/envsubst) into text and `${...}` nodes, with the
// dialect's own operator syntax and error messages. Works on byte strings (bytes.ts); it
// evaluates nothing.
import { decodeRune } from './bytes.js';
import { SubstitutionError } from './substitution-error.js';

export type TemplateNode = { kind: 'text'; value: string } | Expr;
/** `${param}` with an operator ('' for a plain reference) and its already-split arguments. */
export type Expr = { kind: 'expr'; param: string; op: string; args: TemplateNode[] };

const BAD_SUBSTITUTION = 'bad substitution';
const MISSING_CLOSING_BRACE = 'missing closing brace';
const BAD_VARIABLE_NAME = 'unable to parse variable name';
const BAD_FUNC_ARGUMENT = 'unable to parse substitution within function';

/**
 * fluxlens's own bound, not the dialect's: Go's stack grows where ours overflows. Real
 * templates nest a default or two; a pull request can nest a hundred thousand.
 */
const MAX_NESTING = 256;
const TOO_DEEP = `substitution nested deeper than ${MAX_NESTING} levels`;

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
  /** Expressions open around the one being read. */
  private depth = 0;

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
    if (this.depth >= MAX_NESTING) throw new SubstitutionError(TOO_DEEP);
    this.depth += 1;
    const expr = this.parseExprBody();
    this.depth -= 1;
    return expr;
  }

  private parseExprBody(): Expr {
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

/** Parses a whole template (a byte string). Throws SubstitutionError on bad syntax. */
export function parseTemplate(src: string): TemplateNode[] {
  return new Parser(src).parseTemplate();
}
