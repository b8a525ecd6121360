// Evaluates parsed envsubst templates against a variable lookup, including strict mode, and
// offers `envsubst` for ordinary strings and `expandBytes` for byte strings.
import { fromBytes, toBytes } from './bytes.js';
import { applyOperator } from './operators.js';
import { type Expr, type TemplateNode, parseTemplate } from './parse.js';
import { SubstitutionError } from './substitution-error.js';

export type ByteLookup = (name: string) => string | undefined;

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

/** Expands a byte-string template with a byte-string lookup. Throws SubstitutionError. */
export function expandBytes(input: string, lookup: ByteLookup, strict: boolean): string {
  const nodes = parseTemplate(input);
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
