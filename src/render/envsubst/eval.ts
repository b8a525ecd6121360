// Evaluates parsed envsubst templates against a variable lookup, including strict mode, and
// offers `envsubst` for ordinary strings and `expandBytes` for byte strings. It also tells
// which expansions depend on a secret variable, so the caller can keep their text hidden.
// Every expansion runs within a SubstitutionBudget.
import { fromBytes, toBytes } from './bytes.js';
import { applyOperator, replaceAllLength, usesArguments } from './operators.js';
import { type Expr, type TemplateNode, parseTemplate } from './parse.js';
import { SubstitutionBudget } from './substitution-budget.js';
import { SubstitutionError } from './substitution-error.js';

export type ByteLookup = (name: string) => string | undefined;

/** Operators that supply their own fallback, so strict mode lets their variable be unset. */
const DEFAULT_OPERATORS = new Set(['-', '+', '=', '?', ':-', ':+', ':=', ':?']);

interface Context {
  lookup: ByteLookup;
  strict: boolean;
  /** Whether a (byte-string) variable name holds a secret value. */
  isSecret: (name: string) => boolean;
  budget: SubstitutionBudget;
}

/** Expanded text, and whether any of it depends on a secret variable's value. */
interface Expansion {
  text: string;
  secret: boolean;
}

function evaluate(nodes: TemplateNode[], ctx: Context): Expansion {
  let text = '';
  let secret = false;
  for (const node of nodes) {
    if (node.kind === 'text') {
      text += node.value;
      continue;
    }
    const expansion = evaluateExpr(node, ctx);
    ctx.budget.fits(text.length + expansion.text.length);
    text += expansion.text;
    secret ||= expansion.secret;
  }
  return { text, secret };
}

/**
 * A secret variable taints every result of its expression (a substring, its length, its
 * case, even the default chosen because it is empty); a secret argument taints the result
 * when the operator uses it (a trim pattern, a replacement, a default taken).
 */
function evaluateExpr(expr: Expr, ctx: Context): Expansion {
  ctx.budget.reference();
  // Arguments are evaluated before the variable is consulted, so in strict mode a default that
  // mentions a missing variable fails even when the default would not be used.
  const args = evaluateArgs(expr.args, ctx);
  const texts = args.map((arg) => arg.text);
  const value = ctx.lookup(expr.param);
  if (value === undefined && ctx.strict && !DEFAULT_OPERATORS.has(expr.op)) {
    const variable = fromBytes(expr.param);
    throw new SubstitutionError(`variable not set (strict mode): ${JSON.stringify(variable)}`, {
      variable,
    });
  }
  const input = value ?? '';
  ctx.budget.fits(input.length);
  // The one operator whose result can be many times its inputs: sized before it is made.
  if (expr.op === '//') ctx.budget.fits(replaceAllLength(input, texts[0] ?? '', texts[1] ?? ''));
  const text = applyOperator(expr.op, input, texts);
  ctx.budget.fits(text.length);
  const fromArgs = usesArguments(expr.op, input, texts) && args.some((arg) => arg.secret);
  return { text, secret: (value !== undefined && ctx.isSecret(expr.param)) || fromArgs };
}

/** The arguments' expansions, together within the budget, as a default joins them all. */
function evaluateArgs(args: TemplateNode[], ctx: Context): Expansion[] {
  let length = 0;
  return args.map((arg) => {
    const expansion = evaluate([arg], ctx);
    length += expansion.text.length;
    ctx.budget.fits(length);
    return expansion;
  });
}

/** Expands a byte-string template with a byte-string lookup. Throws SubstitutionError. */
export function expandBytes(input: string, lookup: ByteLookup, strict: boolean): string {
  const budget = new SubstitutionBudget(input.length);
  return evaluate(parseTemplate(input), { lookup, strict, isSecret: () => false, budget }).text;
}

/** How expandBytesMarked tells secret text apart: names, and the bytes around such text. */
export interface SecretMarks {
  isSecret: (name: string) => boolean;
  open: string;
  close: string;
}

/**
 * expandBytes, plus the same text with every top-level expansion that depends on a secret
 * variable enclosed in `marks.open` and `marks.close` (undefined when there is none).
 */
export function expandBytesMarked(
  input: string,
  lookup: ByteLookup,
  strict: boolean,
  marks: SecretMarks,
): { text: string; marked: string | undefined } {
  const budget = new SubstitutionBudget(input.length);
  const ctx: Context = { lookup, strict, isSecret: marks.isSecret, budget };
  let text = '';
  let marked = '';
  let secret = false;
  for (const node of parseTemplate(input)) {
    const expansion =
      node.kind === 'text' ? { text: node.value, secret: false } : evaluateExpr(node, ctx);
    budget.fits(text.length + expansion.text.length);
    text += expansion.text;
    marked += expansion.secret ? marks.open + expansion.text + marks.close : expansion.text;
    secret ||= expansion.secret;
  }
  return { text, marked: secret ? marked : undefined };
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
