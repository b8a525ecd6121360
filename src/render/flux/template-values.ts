/**
 * Values inside a ResourceSet template, as Go holds the inputs (decoded from JSON): strings,
 * numbers, booleans, nil, lists and maps; how Go prints them and tells them true; and the
 * two ways a template does not evaluate.
 */

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value } | Unknown;

/** A value only the cluster knows (an input set's `id`): reading it is not evaluated. */
export class Unknown {
  constructor(readonly what: string) {}
}

/** A template Go refuses too: flux-operator fails the ResourceSet on it. */
export class TemplateError extends Error {}

/** A construct or function fluxlens does not evaluate (named in `message`). */
export class TemplateUnsupported extends Error {}

export function isMap(value: Value): value is { [key: string]: Value } {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !(value instanceof Unknown)
  );
}

function known(value: Value): Value {
  if (value instanceof Unknown) throw new TemplateUnsupported(value.what);
  return value;
}

/** `.key` of a value: a map's entry; a key the map lacks fails, as flux-operator's templates do. */
export function fieldOf(value: Value, key: string): Value {
  const base = known(value);
  if (isMap(base)) {
    if (!Object.hasOwn(base, key)) throw new TemplateError(`map has no entry for key "${key}"`);
    return known(base[key] ?? null);
  }
  if (base === null) throw new TemplateError(`nil pointer evaluating interface {}.${key}`);
  throw new TemplateError(`can't evaluate field ${key} in type ${goType(base)}`);
}

export function goType(value: Value): string {
  if (value === null) return 'nil';
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'object') return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}

/** Go's truth: false, 0, nil and empty strings, lists and maps are false. */
export function isTrue(value: Value): boolean {
  const v = known(value);
  if (v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

/** How Go's fmt prints a value with %v (what an action writes). */
export function goString(value: Value): string {
  const v = known(value);
  if (v === null) return '<no value>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return goNumber(v);
  if (Array.isArray(v)) return `[${v.map(inner).join(' ')}]`;
  const m = v as { [key: string]: Value };
  return `map[${Object.keys(m)
    .sort()
    .map((k) => `${k}:${inner(m[k] ?? null)}`)
    .join(' ')}]`;
}

function inner(value: Value): string {
  return value === null ? '<nil>' : goString(value);
}

/** A float64 as %v prints it: integers without a point, exponents past 1e21. */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(n).replace(/e([+-])(\d)$/, 'e$10$2');
}
