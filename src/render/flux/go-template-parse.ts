/**
 * Reading a ResourceSet template (Go text/template with `<< >>` delimiters) into a tree:
 * text, actions with their trim markers and comments, pipelines, and the control actions
 * go-template.ts evaluates. What Go parses but fluxlens does not evaluate (named templates,
 * `break`, `continue`, `else with`, character constants) throws TemplateUnsupported.
 */
import { TemplateError, TemplateUnsupported, type Value } from './template-values.js';

export type Operand =
  | { t: 'field'; base: 'dot' | { variable: string } | { call: string } | Pipeline; path: string[] }
  | { t: 'literal'; value: Value }
  | { t: 'ident'; name: string };
export interface Command {
  operands: Operand[];
}
export interface Pipeline {
  declare?: { names: string[]; assign: boolean };
  commands: Command[];
}
export interface Control {
  t: 'if' | 'with' | 'range';
  pipe: Pipeline;
  then: Node[];
  else: Node[];
}
export type Node = { t: 'text'; text: string } | { t: 'action'; pipe: Pipeline } | Control;

const LEFT = '<<';
const RIGHT = '>>';

interface Action {
  body: string;
}
type Piece = { text: string } | Action;

function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf(LEFT, i);
    if (open < 0) {
      out.push({ text: text.slice(i) });
      break;
    }
    let before = text.slice(i, open);
    let start = open + LEFT.length;
    if (
      text.startsWith('- ', start) ||
      text.startsWith('-\n', start) ||
      text.startsWith('-\t', start)
    ) {
      before = before.replace(/[ \t\r\n]+$/, '');
      start += 1;
    }
    const close = findClose(text, start);
    if (close < 0) throw new TemplateError('unclosed action');
    let body = text.slice(start, close);
    let end = close + RIGHT.length;
    if (/[ \t\r\n]-$/.test(body)) {
      body = body.slice(0, -1);
      const rest = /^[ \t\r\n]*/.exec(text.slice(end));
      end += rest?.[0].length ?? 0;
    }
    if (before) out.push({ text: before });
    out.push({ body: body.trim() });
    i = end;
  }
  return out;
}

/** The closing delimiter, past strings and raw strings inside the action. */
function findClose(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === '`' || c === "'") {
      const end = skipQuoted(text, i);
      if (end < 0) return -1;
      i = end;
    } else if (text.startsWith(RIGHT, i)) return i;
  }
  return -1;
}

function skipQuoted(text: string, i: number): number {
  const quote = text[i];
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\' && quote !== '`') j++;
    else if (text[j] === quote) return j;
  }
  return -1;
}

type Token =
  | { k: 'string' | 'number' | 'word' | 'var' | 'field'; v: string }
  | { k: '(' | ')' | '|' | ':=' | '=' | ',' };

function tokenize(body: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < body.length) {
    const c = body[i] ?? '';
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === '`') {
      const end = skipQuoted(body, i);
      if (end < 0) throw new TemplateError('unterminated string');
      const raw = body.slice(i, end + 1);
      tokens.push({ k: 'string', v: c === '`' ? raw.slice(1, -1) : unquote(raw) });
      i = end + 1;
    } else if (c === "'") {
      throw new TemplateUnsupported('character constants');
    } else if (body.startsWith(':=', i)) {
      tokens.push({ k: ':=' });
      i += 2;
    } else if ('()|=,'.includes(c)) {
      tokens.push({ k: c as '(' | ')' | '|' | '=' | ',' });
      i++;
    } else if (c === '$' || c === '.' || /[A-Za-z_]/.test(c)) {
      const m =
        /^(\$[A-Za-z0-9_]*|\.?[A-Za-z_][A-Za-z0-9_]*|\.)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)/.exec(
          body.slice(i),
        );
      const word = m?.[0] ?? c;
      tokens.push({ k: c === '$' ? 'var' : c === '.' ? 'field' : 'word', v: word });
      i += word.length;
    } else if (/[-+0-9]/.test(c)) {
      const m = /^[-+]?(?:0[xX][0-9a-fA-F_]+|[0-9_]*\.?[0-9_]+(?:[eE][-+]?[0-9]+)?)/.exec(
        body.slice(i),
      );
      if (!m || m[0] === '' || m[0] === '-' || m[0] === '+')
        throw new TemplateError(`unexpected '${c}'`);
      tokens.push({ k: 'number', v: m[0] });
      i += m[0].length;
    } else {
      throw new TemplateError(`unexpected '${c}' in action`);
    }
  }
  return tokens;
}

function unquote(raw: string): string {
  try {
    return JSON.parse(
      raw.replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1').replace(/\\'/g, "'"),
    ) as string;
  } catch {
    throw new TemplateError(`invalid string ${raw}`);
  }
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  pipeline(): Pipeline {
    const pipe: Pipeline = { commands: [] };
    const declare = this.declaration();
    if (declare) pipe.declare = declare;
    for (;;) {
      pipe.commands.push(this.command());
      if (this.peek()?.k !== '|') break;
      this.i++;
    }
    return pipe;
  }

  done(): boolean {
    return this.i >= this.tokens.length;
  }

  private declaration(): Pipeline['declare'] {
    const names: string[] = [];
    let j = this.i;
    for (;;) {
      const t = this.tokens[j];
      if (t?.k !== 'var' || t.v.includes('.')) return undefined;
      names.push(t.v);
      const next = this.tokens[j + 1];
      if (next?.k === ',') {
        j += 2;
        continue;
      }
      if (next?.k === ':=' || next?.k === '=') {
        this.i = j + 2;
        return { names, assign: next.k === '=' };
      }
      return undefined;
    }
  }

  private command(): Command {
    const operands: Operand[] = [];
    for (;;) {
      const t = this.peek();
      if (!t || t.k === '|' || t.k === ')') break;
      operands.push(this.operand());
    }
    if (operands.length === 0) throw new TemplateError('missing value for command');
    return { operands };
  }

  private operand(): Operand {
    const t = this.tokens[this.i++];
    if (!t) throw new TemplateError('unexpected end of action');
    switch (t.k) {
      case 'string':
        return { t: 'literal', value: t.v };
      case 'number':
        return { t: 'literal', value: parseNumber(t.v) };
      case 'field':
        return { t: 'field', base: 'dot', path: t.v === '.' ? [] : t.v.slice(1).split('.') };
      case 'var': {
        const [name = '$', ...path] = t.v.split('.');
        return { t: 'field', base: { variable: name }, path };
      }
      case 'word': {
        const [name = '', ...path] = t.v.split('.');
        if (path.length > 0) return { t: 'field', base: { call: name }, path };
        if (name === 'true' || name === 'false') return { t: 'literal', value: name === 'true' };
        if (name === 'nil') return { t: 'literal', value: null };
        return { t: 'ident', name };
      }
      case '(': {
        const inner = this.pipeline();
        if (this.tokens[this.i++]?.k !== ')') throw new TemplateError('unclosed left paren');
        const next = this.peek();
        if (next?.k === 'field') {
          this.i++;
          return { t: 'field', base: inner, path: next.v.slice(1).split('.') };
        }
        return { t: 'field', base: inner, path: [] };
      }
      default:
        throw new TemplateError(`unexpected '${t.k}' in operand`);
    }
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }
}

function parseNumber(text: string): number {
  const clean = text.replace(/_/g, '');
  const value = /^[-+]?0[xX]/.test(clean) ? parseInt(clean, 16) : Number(clean);
  if (Number.isNaN(value)) throw new TemplateError(`invalid number ${text}`);
  return value;
}

function parsePipeline(body: string): Pipeline {
  const parser = new Parser(tokenize(body));
  const pipe = parser.pipeline();
  if (!parser.done()) throw new TemplateError(`unexpected token in '${body}'`);
  return pipe;
}

/** The template's tree: control actions nest until their `end`. */
export function parse(text: string): Node[] {
  const list = pieces(text);
  let at = 0;
  const block = (inside: string | undefined): { nodes: Node[]; ended: 'end' | 'else' } => {
    const nodes: Node[] = [];
    while (at < list.length) {
      const piece = list[at++] as Piece;
      if ('text' in piece) {
        nodes.push({ t: 'text', text: piece.text });
        continue;
      }
      const body = piece.body;
      if (body.startsWith('/*')) {
        if (!body.endsWith('*/')) throw new TemplateError('unclosed comment');
        continue;
      }
      const [word = ''] = body.split(/\s+/);
      const arg = body.slice(word.length).trim();
      if (word === 'end' || word === 'else') {
        if (inside === undefined) throw new TemplateError(`unexpected ${word}`);
        if (word === 'else') at--;
        return { nodes, ended: word };
      }
      if (word === 'if' || word === 'with' || word === 'range') {
        if (arg === '') throw new TemplateError(`missing value for ${word}`);
        nodes.push(control(word, arg));
        continue;
      }
      if (['define', 'template', 'block', 'break', 'continue'].includes(word))
        throw new TemplateUnsupported(word);
      nodes.push({ t: 'action', pipe: parsePipeline(body) });
    }
    if (inside !== undefined) throw new TemplateError(`unexpected EOF in ${inside}`);
    return { nodes, ended: 'end' };
  };
  const control = (word: 'if' | 'with' | 'range', arg: string): Node => {
    const pipe = parsePipeline(arg);
    const then = block(word);
    let otherwise: Node[] = [];
    if (then.ended === 'else') {
      const piece = list[at++] as Action;
      const rest = piece.body.slice('else'.length).trim();
      if (rest.startsWith('if ') || rest.startsWith('with ')) {
        const [chained = ''] = rest.split(/\s+/);
        if (chained === 'with') throw new TemplateUnsupported('else with');
        // `else if` is an `if` inside the else branch that shares this block's `end`.
        otherwise = [control('if', rest.slice(chained.length).trim())];
      } else {
        if (rest !== '') throw new TemplateError(`unexpected '${rest}' after else`);
        const tail = block(word);
        if (tail.ended === 'else') throw new TemplateError('else after else');
        otherwise = tail.nodes;
      }
    }
    return { t: word, pipe, then: then.nodes, else: otherwise };
  };
  return block(undefined).nodes;
}
