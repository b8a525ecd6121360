/**
 * Flux post-build variable substitution (kustomize-controller `spec.postBuild`).
 *
 * Mirrors github.com/fluxcd/pkg/envsubst v1.9.0 and fluxcd/pkg/kustomize v1.44.0. The envsubst
 * dialect is NOT bash: several operators differ from their shell namesakes, and the differences
 * are deliberate here because the goal is to predict what the cluster will render. The dialect
 * itself lives in ./envsubst/; this file wires it to Flux variables and manifests.
 */
import { parse, stringify, YAMLParseError } from 'yaml';
import type { ScalarTag, Tags } from 'yaml';
import { stringTag } from 'yaml/util';
import {
  expandBytes,
  fromBytes,
  isValidUtf8,
  SubstitutionError,
  toBytes,
} from './envsubst/index.js';
import type { ByteLookup } from './envsubst/index.js';

export { envsubst, SubstitutionError } from './envsubst/index.js';

export type VarSource = { kind: 'ConfigMap' | 'Secret'; name: string; optional: boolean };

// ---------------------------------------------------------------------------------------------
// Variables
// ---------------------------------------------------------------------------------------------

const VAR_NAME_SOURCE = '^[_[:alpha:]][_[:alpha:][:digit:]]*$';
// Go's RE2 POSIX classes are ASCII-only, unlike the \p{L} letters the envsubst parser accepts.
const VAR_NAME = /^[_A-Za-z][_A-Za-z0-9]*$/;

function validateNames(names: Iterable<string>): void {
  for (const name of names) {
    if (!VAR_NAME.test(name)) {
      throw new SubstitutionError(`'${name}' var name is invalid, must match '${VAR_NAME_SOURCE}'`);
    }
  }
}

// Only LF is removed; a CRLF value keeps its CR, exactly as in kustomize-controller.
function stripNewlines(value: string): string {
  return value.replaceAll('\n', '');
}

/** Merge variables as Flux does: sources in order (later wins), then inline substitute (wins); strips newlines; validates names. */
export function collectVariables(input: {
  inline: Record<string, string> | undefined;
  sources: Array<{ ref: VarSource; data: Record<string, string> | undefined }>;
}): Record<string, string> {
  // A Map keeps keys such as `__proto__` (a valid variable name) as plain data.
  const merged = new Map<string, string>();
  for (const { ref, data } of input.sources) {
    if (data === undefined) {
      if (ref.optional) continue;
      throw new SubstitutionError(`substitute from '${ref.kind}/${ref.name}' error: not found`);
    }
    for (const [name, value] of Object.entries(data)) merged.set(name, stripNewlines(value));
  }
  for (const [name, value] of Object.entries(input.inline ?? {})) {
    merged.set(name, stripNewlines(value));
  }
  validateNames(merged.keys());
  return Object.fromEntries(merged);
}

// ---------------------------------------------------------------------------------------------
// Manifests
// ---------------------------------------------------------------------------------------------

const DISABLE_KEY = 'kustomize.toolkit.fluxcd.io/substitute';
const MAX_ALIAS_COUNT = 1000;

const INT_TAG = 'tag:yaml.org,2002:int';
const FLOAT_TAG = 'tag:yaml.org,2002:float';
const NON_FINITE_LITERAL = /^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/;

// Flux re-reads the substituted text with go-yaml v2, a YAML 1.1 reader: `yes`/`on`/`y` are
// booleans and `0777` is octal. It does not turn timestamps or base-60 numbers such as `10:30`
// into anything but strings, so those two 1.1 resolvers are removed. Go's ParseInt also takes
// `0o17` and upper-case prefixes (`0X1F`), which the 1.1 schema does not know.
const goPrefixedInt: ScalarTag = {
  identify: () => false,
  default: true,
  tag: INT_TAG,
  test: /^[-+]?0(?:[bB][01_]*[01][01_]*|[oO][0-7_]*[0-7][0-7_]*|[xX][0-9a-fA-F_]*[0-9a-fA-F][0-9a-fA-F_]*)$/,
  resolve: (text) => {
    const digits = text.replaceAll('_', '').toLowerCase();
    const negative = digits.startsWith('-');
    const magnitude = BigInt(digits.replace(/^[-+]/, ''));
    // Beyond int64 (negative) or uint64 (positive) both Go parsers fail and the text stays.
    if (magnitude > (negative ? 2n ** 63n : 2n ** 64n - 1n)) return text;
    return negative ? -Number(magnitude) : Number(magnitude);
  },
};

/** Printable and free of double quotes, so Go would not have escaped anything. */
function isSingleQuotable(value: string): boolean {
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (char === '"' || code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0xfeff) {
      return false;
    }
  }
  return true;
}

// go-yaml v2 falls back to single quotes whenever a printable one-line string cannot be plain;
// the yaml package picks double quotes for strings holding an apostrophe. The quoting style
// decides how substituted text is read (`\n` is an escape only in double quotes), so follow Go.
const goQuotedString: ScalarTag = {
  ...stringTag,
  stringify(item, ctx, onComment, onChompKeep) {
    const out = stringTag.stringify?.(item, ctx, onComment, onChompKeep) ?? '';
    const value = String(item.value);
    return out.startsWith('"') && value.includes("'") && isSingleQuotable(value)
      ? `'${value.replaceAll("'", "''")}'`
      : out;
  },
};

/** Go's ParseFloat fails on out-of-range numbers such as `1e400`, and go-yaml keeps the text. */
function keepOverflowAsString(tag: ScalarTag): ScalarTag {
  return {
    ...tag,
    resolve: (text, onError, options) => {
      const value = tag.resolve(text, onError, options);
      const overflow = typeof value === 'number' && !Number.isFinite(value);
      return overflow && !NON_FINITE_LITERAL.test(text) ? text : value;
    },
  };
}

const yaml11Tags = (tags: Tags): Tags => [
  ...tags
    .filter(
      (tag) =>
        typeof tag === 'string' ||
        (tag.tag !== 'tag:yaml.org,2002:timestamp' && !('format' in tag && tag.format === 'TIME')),
    )
    .map((tag) => {
      if (typeof tag === 'string' || tag.collection !== undefined) return tag;
      if (tag.tag === stringTag.tag) return goQuotedString;
      return tag.tag === INT_TAG || tag.tag === FLOAT_TAG ? keepOverflowAsString(tag) : tag;
    }),
  goPrefixedInt,
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function metadataField(manifest: Record<string, unknown>, field: string): unknown {
  const metadata = manifest['metadata'];
  return isRecord(metadata) ? metadata[field] : undefined;
}

function isDisabled(manifest: Record<string, unknown>): boolean {
  return ['labels', 'annotations'].some((field) => {
    const map = metadataField(manifest, field);
    return isRecord(map) && Object.hasOwn(map, DISABLE_KEY) && map[DISABLE_KEY] === 'disabled';
  });
}

function describe(manifest: Record<string, unknown>): string {
  const kind = manifest['kind'];
  const name = metadataField(manifest, 'name');
  return `${typeof kind === 'string' ? kind : '<unknown kind>'}/${typeof name === 'string' ? name : '<unnamed>'}`;
}

function toYaml(manifest: Record<string, unknown>): string {
  // No folding, so a `${...}` never straddles a line; single quotes and literal blocks, as
  // go-yaml v2 prefers, so substituted text is read back with the same quoting rules.
  return stringify(manifest, {
    schema: 'yaml-1.1',
    customTags: yaml11Tags,
    lineWidth: 0,
    minContentWidth: 0,
    singleQuote: true,
    blockQuote: 'literal',
    aliasDuplicateObjects: false,
  });
}

/** Describes a YAML failure by code and position only: the source excerpt may hold secrets. */
function describeYamlFailure(error: unknown): string {
  if (error instanceof YAMLParseError) {
    const at = error.linePos?.[0];
    return at ? `${error.code} at line ${at.line}, column ${at.col}` : error.code;
  }
  return error instanceof Error ? error.name : 'unknown error';
}

/** sigs.k8s.io/yaml's key conversion: scalars become strings, anything else is an error. */
function jsonKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'boolean' || typeof key === 'bigint') return String(key);
  if (typeof key === 'number') {
    if (Number.isNaN(key)) return '.nan';
    if (!Number.isFinite(key)) return key > 0 ? '.inf' : '-.inf';
    return String(key);
  }
  throw new Error('unsupported map key');
}

/** Converts the Map-based parse result to JSON-shaped data, as Go's YAML-to-JSON step does. */
function toJsonShape(value: unknown): unknown {
  if (value instanceof Map) {
    const entries: Array<[string, unknown]> = [];
    for (const [key, item] of value) entries.push([jsonKey(key), toJsonShape(item)]);
    return Object.fromEntries(entries);
  }
  if (Array.isArray(value)) return value.map(toJsonShape);
  // JSON has no NaN or Infinity, so Go's json.Marshal rejects `.nan` and `.inf` values.
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('unsupported value');
  return value;
}

function fromYaml(text: string, where: string): Record<string, unknown> {
  const fail = (detail: string): SubstitutionError =>
    new SubstitutionError(`post build failed for '${where}': envsubst error: ${detail}`);
  if (!isValidUtf8(text)) throw fail('YAMLToJSON: substituted text is not valid UTF-8');
  // go-yaml treats a lone CR as a line break; it can only come from a substituted value
  // (a CRLF Secret keeps its CR), since the serialiser escapes CRs in existing strings.
  const source = fromBytes(text).replace(/\r\n?/g, '\n');
  let parsed: unknown;
  try {
    parsed = parse(source, {
      schema: 'yaml-1.1',
      customTags: yaml11Tags,
      merge: true,
      uniqueKeys: false,
      mapAsMap: true,
      logLevel: 'error',
      maxAliasCount: MAX_ALIAS_COUNT,
    });
  } catch (error) {
    // YAML errors quote the offending source line, which may hold a secret: keep only the code.
    throw fail(`YAMLToJSON: ${describeYamlFailure(error)}`);
  }
  let value: unknown;
  try {
    value = toJsonShape(parsed);
  } catch (error) {
    throw fail(`YAMLToJSON: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw fail('UnmarshalJSON: substituted object is not a mapping');
  return value;
}

/** Flux's wording, as kustomize-controller reports it for the object. */
function wrapForManifest(
  where: string,
  error: SubstitutionError,
  stage: string,
): SubstitutionError {
  const message = `post build failed for '${where}': envsubst error: ${stage}${error.message}`;
  const { variable } = error;
  return new SubstitutionError(
    message,
    variable === undefined ? { cause: error } : { cause: error, variable },
  );
}

/** Apply post-build substitution to one manifest (a plain JS object as parsed from YAML). Returns the new manifest, or the same object when substitution is disabled for it or there is nothing to do. */
export function substituteManifest(
  manifest: Record<string, unknown>,
  vars: Record<string, string>,
  options: { strict: boolean; always: boolean },
): Record<string, unknown> {
  if (isDisabled(manifest)) return manifest;
  const names = Object.keys(vars);
  if (names.length === 0 && !options.always) return manifest;
  const where = describe(manifest);
  try {
    validateNames(names);
  } catch (error) {
    throw wrapForManifest(where, error as SubstitutionError, '');
  }
  const text = toYaml(manifest);
  if (!text.includes('$')) return manifest;
  const lookup: ByteLookup = (name) => {
    const key = fromBytes(name);
    const value = Object.hasOwn(vars, key) ? vars[key] : undefined;
    return value === undefined ? undefined : toBytes(value);
  };
  let output: string;
  try {
    output = expandBytes(toBytes(text), lookup, options.strict);
  } catch (error) {
    if (!(error instanceof SubstitutionError)) throw error;
    throw wrapForManifest(where, error, 'variable substitution failed: ');
  }
  return fromYaml(output, where);
}
