/**
 * The part of Go's text/template that flux-operator's ResourceSet templates use, with the
 * `<< >>` delimiters: text, actions with trim markers, pipelines, variables, field chains,
 * `if`/`else if`/`else`, `range` (lists, maps in key order), `with`, and the functions of
 * template-functions.ts. Anything else throws TemplateUnsupported naming the construct, so
 * that a template is evaluated as Go would or not at all; a template Go itself refuses
 * (a parse error, a missing key, a call that fails) throws TemplateError.
 */
import { callFunction, type FunctionContext } from './template-functions.js';
import {
  TemplateError,
  TemplateUnsupported,
  fieldOf,
  goString,
  isTrue,
  type Value,
} from './template-values.js';

type Operand =
  | { t: 'field'; base: 'dot' | { variable: string } | { call: string } | Pipeline; path: string[] }
  | { t: 'literal'; value: Value }
  | { t: 'ident'; name: string };
interface Command {
  operands: Operand[];
}
interface Pipeline {
  declare?: { names: string[]; assign: boolean };
  commands: Command[];
}
interface Control {
  t: 'if' | 'with' | 'range';
  pipe: Pipeline;
  then: Node[];
  else: Node[];
}
type Node = { t: 'text'; text: string } | { t: 'action'; pipe: Pipeline } | Control;

const LEFT = '<<';
const RIGHT = '>>';
/** Bounds on what one template may make: a template is repository content. */
const MAX_OUTPUT = 4 * 1024 * 1024;
const MAX_STEPS = 1_000_000;

/** Evaluates `text` with `inputs` as the `inputs` function's value. */
export function renderTemplate(text: string, inputs: Value, functions: FunctionContext): string {
  const nodes = parse(text);
  const out: string[] = [];
  const state = { size: 0, steps: 0 };
  const scope: Scope = { vars: new Map([['$', UNSET_DOT]]), dot: UNSET_DOT, inputs, functions };
  execute(nodes, scope, out, state);
  return out.join('');
}

/** The top-level dot: flux-operator's data is not documented, so reading it is not evaluated. */
const UNSET_DOT: Value = Object.freeze({ __unsetDot: true }) as unknown as Value;

interface Scope {
  vars: Map<string, Value>;
  dot: Value;
  inputs: Value;
  functions: FunctionContext;
}

// ---------------------------------------------------------------- lexing and parsing

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
function parse(text: string): Node[] {
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
      const [word = '', ...rest] = body.split(/\s+/);
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
      void rest;
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

// ---------------------------------------------------------------- evaluation

function execute(
  nodes: Node[],
  scope: Scope,
  out: string[],
  state: { size: number; steps: number },
): void {
  for (const node of nodes) {
    if (++state.steps > MAX_STEPS) throw new TemplateError('template runs too long');
    if (node.t === 'text') write(out, state, node.text);
    else if (node.t === 'action') {
      const value = pipeline(node.pipe, scope);
      if (!node.pipe.declare) write(out, state, goString(value));
    } else if (node.t === 'if' || node.t === 'with') {
      const inner: Scope = { ...scope, vars: new Map(scope.vars) };
      const value = pipeline(node.pipe, inner);
      if (isTrue(value))
        execute(node.then, node.t === 'with' ? { ...inner, dot: value } : inner, out, state);
      else execute(node.else, { ...scope, vars: new Map(scope.vars) }, out, state);
    } else {
      range(node, scope, out, state);
    }
  }
}

function range(
  node: Control,
  scope: Scope,
  out: string[],
  state: { size: number; steps: number },
): void {
  const { declare, commands } = node.pipe;
  const value = pipeline({ commands }, scope);
  let items: Array<[Value, Value]>;
  if (Array.isArray(value)) items = value.map((v, i) => [i, v]);
  else if (value !== null && typeof value === 'object')
    items = Object.keys(value)
      .sort()
      .map((k) => [k, (value as Record<string, Value>)[k] ?? null]);
  else if (value === null) items = [];
  else if (typeof value === 'number') throw new TemplateUnsupported('range over an integer');
  else throw new TemplateError(`range can't iterate over ${goString(value)}`);
  if (items.length === 0) {
    execute(node.else, { ...scope, vars: new Map(scope.vars) }, out, state);
    return;
  }
  for (const [key, item] of items) {
    const vars = new Map(scope.vars);
    if (declare) {
      if (declare.names.length === 1) vars.set(declare.names[0] ?? '', item);
      else {
        vars.set(declare.names[0] ?? '', key);
        vars.set(declare.names[1] ?? '', item);
      }
    }
    execute(node.then, { ...scope, vars, dot: item }, out, state);
  }
}

function write(out: string[], state: { size: number }, text: string): void {
  state.size += text.length;
  if (state.size > MAX_OUTPUT) throw new TemplateError('template output too large');
  out.push(text);
}

function pipeline(pipe: Pipeline, scope: Scope): Value {
  let value: Value | undefined;
  for (const command of pipe.commands) value = run(command, scope, value);
  const result = value ?? null;
  if (pipe.declare) {
    if (pipe.declare.names.length !== 1) throw new TemplateError('too many declarations');
    const name = pipe.declare.names[0] ?? '';
    if (pipe.declare.assign && !scope.vars.has(name))
      throw new TemplateError(`undefined variable: ${name}`);
    scope.vars.set(name, result);
  }
  return result;
}

function run(command: Command, scope: Scope, piped: Value | undefined): Value {
  const [first, ...rest] = command.operands;
  if (!first) throw new TemplateError('empty command');
  if (first.t === 'ident') {
    const args = rest.map((o) => operand(o, scope));
    if (piped !== undefined) args.push(piped);
    if (first.name === 'inputs' && args.length === 0) return scope.inputs;
    return callFunction(first.name, args, scope.functions);
  }
  if (rest.length > 0 || piped !== undefined)
    throw new TemplateError(`can't give argument to non-function ${describe(first)}`);
  return operand(first, scope);
}

function operand(o: Operand, scope: Scope): Value {
  if (o.t === 'literal') return o.value;
  if (o.t === 'ident') {
    if (o.name === 'inputs') return scope.inputs;
    return callFunction(o.name, [], scope.functions);
  }
  let base: Value;
  if (o.base === 'dot') base = scope.dot;
  else if ('variable' in o.base) {
    if (!scope.vars.has(o.base.variable))
      throw new TemplateError(`undefined variable: ${o.base.variable}`);
    base = scope.vars.get(o.base.variable) ?? null;
  } else if ('call' in o.base) {
    if (o.base.call !== 'inputs')
      throw new TemplateUnsupported(`${o.base.call}.${o.path.join('.')}`);
    base = scope.inputs;
  } else base = pipeline(o.base, scope);
  if (base === UNSET_DOT) throw new TemplateUnsupported('the top-level dot');
  let value = base;
  for (const key of o.path) value = fieldOf(value, key);
  return value;
}

function describe(o: Operand): string {
  return o.t === 'literal' ? goString(o.value) : o.t === 'ident' ? o.name : 'field';
}
