/**
 * The part of Go's text/template that flux-operator's ResourceSet templates use, with the
 * `<< >>` delimiters: text, actions with trim markers, pipelines, variables, field chains,
 * `if`/`else if`/`else`, `range` (lists, maps in key order), `with`, and the functions of
 * template-functions.ts. Anything else throws TemplateUnsupported naming the construct, so
 * that a template is evaluated as Go would or not at all; a template Go itself refuses
 * (a parse error, a missing key, a call that fails) throws TemplateError.
 */
import {
  type Command,
  type Control,
  type Node,
  type Operand,
  type Pipeline,
  parse,
} from './go-template-parse.js';
import { callFunction, type FunctionContext } from './template-functions.js';
import {
  TemplateError,
  TemplateUnsupported,
  fieldOf,
  goString,
  isTrue,
  type Value,
} from './template-values.js';

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
