/**
 * Flux post-build variable substitution (kustomize-controller `spec.postBuild`).
 *
 * Mirrors github.com/fluxcd/pkg/envsubst v1.9.0 and fluxcd/pkg/kustomize v1.44.0. The envsubst
 * dialect is NOT bash: several operators differ from their shell namesakes, and the differences
 * are deliberate here because the goal is to predict what the cluster will render. The dialect
 * itself lives in ./envsubst/; this file wires it to Flux variables and manifests.
 */
import { type ScalarTag, type Tags, stringify } from 'yaml';
import { stringTag } from 'yaml/util';
import {
  type ByteLookup,
  SubstitutionError,
  expandBytesMarked,
  fromBytes,
  isValidUtf8,
  toBytes,
} from '../envsubst/index.js';
import { GoYamlError, goYamlTags, parseGoYaml } from '../../yaml/index.js';
import { type SecretDerived, isRecord } from '../../model/index.js';
import { SECRET_CLOSE, SECRET_OPEN, derivedFields } from './derived-fields.js';

export { envsubst, SubstitutionError } from '../envsubst/index.js';

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

export interface VariableInput {
  inline: Record<string, string> | undefined;
  /** Inline names whose value derives from a Secret (a parent substituted it). */
  inlineSecret?: ReadonlySet<string>;
  sources: Array<{
    ref: VarSource;
    data: Record<string, string> | undefined;
    /** Keys whose value derives from a Secret; by default every key of a Secret. */
    secretKeys?: ReadonlySet<string>;
  }>;
  /**
   * A required source that is not in the cluster (an ExternalSecret or an operator creates
   * it) is taken as present with unknown values, where Flux, not finding it, would fail.
   */
  assumeUnknown?: boolean;
}

/** The required sources that are not in the cluster and that assumeUnknown takes as present. */
export function unknownSources(input: VariableInput): VarSource[] {
  if (input.assumeUnknown !== true) return [];
  return input.sources.filter((s) => s.data === undefined && !s.ref.optional).map((s) => s.ref);
}

/**
 * What a variable stands for when no known source defines it and a source's values are
 * unknown: DNS-label shaped, so `app.${DOMAIN}` is still a host name and `${APP}-db` an
 * object name, and the same at base and head, so what did not change diffs as unchanged.
 * Names that differ only in case share a marker.
 */
export function unknownValue(name: string): string {
  return `unknown-${name.toLowerCase().replaceAll('_', '-')}`;
}

/** Merge variables as Flux does: sources in order (later wins), then inline substitute (wins); strips newlines; validates names. */
export function collectVariables(input: VariableInput): Record<string, string> {
  // A Map keeps keys such as `__proto__` (a valid variable name) as plain data.
  const merged = new Map<string, string>();
  for (const { ref, data } of input.sources) {
    if (data === undefined) {
      if (ref.optional || input.assumeUnknown === true) continue;
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

/** The variables collectVariables would take from a Secret, or from text derived from one. */
export function secretVariableNames(input: VariableInput): Set<string> {
  const secret = new Map<string, boolean>();
  for (const { ref, data, secretKeys } of input.sources) {
    for (const name of Object.keys(data ?? {})) {
      secret.set(name, secretKeys ? secretKeys.has(name) : ref.kind === 'Secret');
    }
  }
  for (const name of Object.keys(input.inline ?? {})) {
    secret.set(name, input.inlineSecret?.has(name) === true);
  }
  return new Set([...secret].filter(([, isSecret]) => isSecret).map(([name]) => name));
}

// ---------------------------------------------------------------------------------------------
// Manifests
// ---------------------------------------------------------------------------------------------

const DISABLE_KEY = 'kustomize.toolkit.fluxcd.io/substitute';

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

/** Flux re-reads the substituted text with go-yaml v2: write it with the tags that read it. */
const goYamlWriteTags = (tags: Tags): Tags =>
  goYamlTags(tags).map((tag) =>
    typeof tag !== 'string' && tag.collection === undefined && tag.tag === stringTag.tag
      ? goQuotedString
      : tag,
  );

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
    customTags: goYamlWriteTags,
    lineWidth: 0,
    minContentWidth: 0,
    singleQuote: true,
    blockQuote: 'literal',
    aliasDuplicateObjects: false,
  });
}

function fromYaml(text: string, where: string): Record<string, unknown> {
  const fail = (detail: string): SubstitutionError =>
    new SubstitutionError(`post build failed for '${where}': envsubst error: ${detail}`, {
      fluxWorded: true,
    });
  if (!isValidUtf8(text)) throw fail('YAMLToJSON: substituted text is not valid UTF-8');
  // go-yaml treats a lone CR as a line break; it can only come from a substituted value
  // (a CRLF Secret keeps its CR), since the serialiser escapes CRs in existing strings.
  const source = fromBytes(text).replace(/\r\n?/g, '\n');
  let value: unknown;
  try {
    [value] = parseGoYaml(source);
  } catch (error) {
    if (!(error instanceof GoYamlError)) throw error;
    throw fail(`YAMLToJSON: ${error.message}`);
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
    variable === undefined
      ? { cause: error, fluxWorded: true }
      : { cause: error, variable, fluxWorded: true },
  );
}

/** A substituted manifest, and where it holds text derived from secret variables. */
export interface Substituted {
  manifest: Record<string, unknown>;
  secret?: SecretDerived;
}

export interface SubstituteOptions {
  strict: boolean;
  always: boolean;
  /**
   * Some source's values are unknown (unknownSources): a variable `vars` lacks reads as its
   * unknownValue, as any value would (operators apply to it), instead of being undefined.
   */
  unknown?: boolean;
}

/** Apply post-build substitution to one manifest (a plain JS object as parsed from YAML). Returns the new manifest, or the same object when substitution is disabled for it or there is nothing to do. */
export function substituteManifest(
  manifest: Record<string, unknown>,
  vars: Record<string, string>,
  options: SubstituteOptions,
): Record<string, unknown> {
  return substituteTracked(manifest, vars, options, new Set()).manifest;
}

/**
 * substituteManifest, also telling which fields hold text derived from `secretNames`
 * (any operator's result: a substring, a case change, a length...).
 */
export function substituteTracked(
  manifest: Record<string, unknown>,
  vars: Record<string, string>,
  options: SubstituteOptions,
  secretNames: ReadonlySet<string>,
): Substituted {
  if (isDisabled(manifest)) return { manifest };
  const names = Object.keys(vars);
  // An unknown source has variables of its own, so Flux's "nothing to substitute" is not known.
  if (names.length === 0 && !options.always && options.unknown !== true) return { manifest };
  const where = describe(manifest);
  try {
    validateNames(names);
  } catch (error) {
    throw wrapForManifest(where, error as SubstitutionError, '');
  }
  // No key or value holds a '$', so neither does the YAML: found without writing it out.
  if (!JSON.stringify(manifest).includes('$')) return { manifest };
  const text = toYaml(manifest);
  if (!text.includes('$')) return { manifest };
  const lookup: ByteLookup = (name) => {
    const key = fromBytes(name);
    const value = Object.hasOwn(vars, key) ? vars[key] : undefined;
    if (value !== undefined) return toBytes(value);
    // Only a name a source could define: Flux refuses any other in a ConfigMap or Secret.
    return options.unknown === true && VAR_NAME.test(key) ? toBytes(unknownValue(key)) : undefined;
  };
  let output: { text: string; marked: string | undefined };
  try {
    output = expandBytesMarked(toBytes(text), lookup, options.strict, {
      isSecret: (name) => secretNames.has(fromBytes(name)),
      open: toBytes(SECRET_OPEN),
      close: toBytes(SECRET_CLOSE),
    });
  } catch (error) {
    if (!(error instanceof SubstitutionError)) throw error;
    throw wrapForManifest(where, error, 'variable substitution failed: ');
  }
  const substituted = fromYaml(output.text, where);
  if (output.marked === undefined) return { manifest: substituted };
  return { manifest: substituted, secret: derivedFields(substituted, readMarked(output.marked)) };
}

/** The marked copy as data; undefined when the marks broke its YAML. */
function readMarked(marked: string): unknown {
  try {
    return fromYaml(marked, '');
  } catch (error) {
    if (error instanceof SubstitutionError) return undefined;
    throw error;
  }
}
