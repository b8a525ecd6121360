/**
 * GitHub's published REST description (@octokit/openapi, api.github.com) as the referee of
 * the GitHub emulator: a request must be an operation GitHub has, with parameters and a
 * body its schemas accept, and each answer of the emulator must fit the operation's
 * response for that status. The description is read on first use and each operation's
 * schemas compiled once, with only the components they reach, for the whole process.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

type Json = Record<string, unknown>;

interface Description {
  paths: Record<string, Record<string, Json>>;
  components: Record<string, Record<string, unknown>>;
}

export interface GitHubOperation {
  method: string;
  /** The path as GitHub's description writes it, e.g. `/repos/{owner}/{repo}/pulls`. */
  template: string;
  operationId: string;
}

interface Entry extends GitHubOperation {
  matcher: RegExp;
  names: string[];
  literals: number;
  spec: Json;
}

const SCHEMA_BASE = 'https://api.github.com/components/schemas/';
const MAX_PROBLEMS = 5;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

let loaded: { description: Description; operations: Entry[] } | undefined;

function load(): { description: Description; operations: Entry[] } {
  if (loaded) return loaded;
  const file = createRequire(import.meta.url).resolve(
    '@octokit/openapi/generated/api.github.com.json',
  );
  const description = JSON.parse(readFileSync(file, 'utf8')) as Description;
  const operations: Entry[] = [];
  for (const [template, methods] of Object.entries(description.paths)) {
    const segments = template.split('/');
    const names = segments.filter((s) => /^\{.+\}$/.test(s)).map((s) => s.slice(1, -1));
    const pattern = segments
      .map((s) => (/^\{.+\}$/.test(s) ? '([^/]+)' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    for (const [method, spec] of Object.entries(methods)) {
      if (!isObject(spec) || typeof spec.operationId !== 'string') continue;
      operations.push({
        method: method.toUpperCase(),
        template,
        operationId: spec.operationId,
        matcher: new RegExp(`^${pattern}$`),
        names,
        literals: segments.length - names.length,
        spec,
      });
    }
  }
  // `/issues/comments/{id}` before `/issues/{number}/...`: the more literal path wins.
  operations.sort((a, b) => b.literals - a.literals);
  loaded = { description, operations };
  return loaded;
}

/** Follows `#/components/<kind>/<name>` (responses, parameters, request bodies, examples). */
function deref(value: unknown): unknown {
  let node = value;
  for (let hops = 0; isObject(node) && typeof node.$ref === 'string' && hops < 8; hops += 1) {
    const [, kind = '', name = ''] = /^#\/components\/([^/]+)\/(.+)$/.exec(node.$ref) ?? [];
    node = load().description.components[kind]?.[name];
  }
  return node;
}

/** One Ajv per process: the components it holds are GitHub's, the same for every test. */
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
const registered = new Set<string>();

/**
 * OpenAPI 3.0's schema dialect as JSON Schema: `nullable` becomes a `null` type (and a
 * `null` in an enum), component references become absolute, and each component reached is
 * registered once. Examples are data and are left alone.
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === 'example' || key === 'examples' ? value : toJsonSchema(value);
  }
  if (typeof out.$ref === 'string' && out.$ref.startsWith('#/components/schemas/')) {
    const name = out.$ref.slice('#/components/schemas/'.length);
    register(name);
    out.$ref = SCHEMA_BASE + name;
  }
  if (out.nullable !== true) return out;
  delete out.nullable;
  if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  return { anyOf: [out, { type: 'null' }] };
}

function register(name: string): void {
  if (registered.has(name)) return;
  registered.add(name);
  const schema = load().description.components.schemas?.[name];
  const converted = toJsonSchema(schema);
  ajv.addSchema({ ...(isObject(converted) ? converted : {}), $id: SCHEMA_BASE + name });
}

const compiled = new Map<string, ValidateFunction>();
function validator(key: string, schema: unknown): ValidateFunction {
  let found = compiled.get(key);
  if (!found) {
    const converted = toJsonSchema(schema);
    found = ajv.compile(isObject(converted) ? converted : {});
    compiled.set(key, found);
  }
  return found;
}

function explain(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).slice(0, MAX_PROBLEMS).map((e) => {
    const detail = e.keyword === 'enum' ? ` (${JSON.stringify(e.params)})` : '';
    return `${where}${e.instancePath || ''} ${e.message ?? e.keyword}${detail}`;
  });
}

/** A path or query value (always text) as the type its parameter's schema names. */
function typed(value: string, schema: unknown): unknown {
  const type = isObject(schema) ? schema.type : undefined;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) {
    return Number(value);
  }
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The operation GitHub has for a request, or undefined when it has none. */
export function findOperation(method: string, path: string): GitHubOperation | undefined {
  return load().operations.find((o) => o.method === method && o.matcher.test(path));
}

function entryOf(operation: GitHubOperation): Entry {
  const entry = load().operations.find(
    (o) => o.method === operation.method && o.template === operation.template,
  );
  if (!entry) throw new Error(`no operation ${operation.method} ${operation.template}`);
  return entry;
}

/** What GitHub would refuse in a request: parameters out of their schemas, a wrong body. */
export function requestProblems(
  operation: GitHubOperation,
  request: { path: string; query: Record<string, string>; body: unknown },
): string[] {
  const entry = entryOf(operation);
  const values = entry.matcher.exec(request.path)?.slice(1) ?? [];
  const pathValues = Object.fromEntries(
    entry.names.map((n, i) => [n, decodeURIComponent(values[i] ?? '')]),
  );
  const problems: string[] = [];
  const parameters = Array.isArray(entry.spec.parameters) ? entry.spec.parameters : [];
  for (const raw of parameters) {
    const param = deref(raw);
    if (!isObject(param) || typeof param.name !== 'string') continue;
    const source = param.in === 'path' ? pathValues : param.in === 'query' ? request.query : {};
    const value = source[param.name];
    if (value === undefined) {
      if (param.required === true) problems.push(`${param.in} parameter ${param.name} is missing`);
      continue;
    }
    const key = `${entry.operationId} ${String(param.in)} ${param.name}`;
    const check = validator(key, param.schema ?? {});
    if (!check(typed(value, deref(param.schema)))) {
      problems.push(...explain(check.errors, `${String(param.in)} parameter ${param.name}`));
    }
  }
  const body = deref(entry.spec.requestBody);
  const json =
    isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
  if (isObject(body) && isObject(json)) {
    if (request.body === undefined) {
      if (body.required === true) problems.push('the request has no body');
    } else {
      const check = validator(`${entry.operationId} body`, json.schema ?? {});
      if (!check(request.body)) problems.push(...explain(check.errors, 'body'));
    }
  }
  return problems;
}

/**
 * Where GitHub's description contradicts what GitHub sends, each with its reason: the
 * schema at `at` (below the response's) is replaced before it is compiled. Kept short.
 */
const ERRATA: {
  response: string;
  at: string[];
  why: string;
  fix: (schema: Json) => Json;
}[] = [
  {
    response: 'apps/list-installations 200',
    at: ['items', 'properties', 'account'],
    why: 'the account is a user or an enterprise (allOf asks for both; GET installation says anyOf)',
    fix: ({ allOf, ...rest }) => ({ ...rest, anyOf: allOf }),
  },
];

function withErrata(key: string, schema: unknown): unknown {
  let patched = schema;
  for (const erratum of ERRATA.filter((e) => e.response === key)) {
    patched = structuredClone(patched);
    let parent: unknown = patched;
    for (const step of erratum.at.slice(0, -1))
      parent = isObject(parent) ? parent[step] : undefined;
    const last = erratum.at.at(-1) ?? '';
    if (isObject(parent) && isObject(parent[last])) parent[last] = erratum.fix(parent[last]);
    else throw new Error(`erratum for ${key} no longer applies: ${erratum.why}`);
  }
  return patched;
}

/** Where the emulator's answer differs from what GitHub documents for that status. */
export function responseProblems(
  operation: GitHubOperation,
  status: number,
  body: unknown,
): string[] {
  const entry = entryOf(operation);
  const responses = isObject(entry.spec.responses) ? entry.spec.responses : {};
  const response = deref(responses[String(status)]);
  if (!isObject(response)) {
    // GitHub's description lists the errors it expects, not every one it may send.
    return status < 400 ? [`GitHub documents no ${status} answer`] : [];
  }
  const content = isObject(response.content) ? response.content['application/json'] : undefined;
  if (!isObject(content) || content.schema === undefined) return [];
  const key = `${entry.operationId} ${status}`;
  const check = validator(key, withErrata(key, content.schema));
  return check(body) ? [] : explain(check.errors, 'response');
}

/** A copy of one of GitHub's own examples (`components.examples`), to build answers on. */
export function githubExample(name: string): Json {
  const example = load().description.components.examples?.[name];
  if (!isObject(example) || !isObject(example.value)) throw new Error(`no example ${name}`);
  return structuredClone(example.value);
}
