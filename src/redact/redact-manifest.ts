/**
 * Redacts manifests before anything is compared, printed or stored: every Secret
 * data/stringData/sops value, and credential-shaped strings in any object. Redacting a
 * base/head pair marks head values that differ from base, so changes stay visible.
 */
import { Buffer } from 'node:buffer';
import {
  type Manifest,
  type SecretDerived,
  apiGroup,
  isRecord,
  objectMeta,
  pairListItems,
} from '../model/index.js';
import { type FieldPath, type HiddenFields, hiddenFields } from './hidden-fields.js';
import {
  NO_SECRET_VALUES,
  REDACTED,
  REDACTED_CHANGED,
  SECRET_NAME,
  type SecretValueIndex,
  addSecretValues,
  redactText,
} from './redact-text.js';

/**
 * Deeper than any real manifest (CRD schemas included); a subtree past it is replaced
 * whole, never walked, which also bounds the recursion of every later step.
 */
const MAX_DEPTH = 512;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const SECRET_FIELDS = ['data', 'stringData'] as const;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The marker for a head value: changed when base has a different one at the same place. */
function marker(value: unknown, ref: unknown): string {
  return ref !== undefined && JSON.stringify(ref) !== JSON.stringify(value)
    ? REDACTED_CHANGED
    : REDACTED;
}

/** Sets an own property, even `__proto__` (a valid ConfigMap or Secret key). */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** What one redaction walk hides: known values everywhere, and the producer's fields. */
interface Hide {
  secrets: SecretValueIndex;
  /** Set when the producer marked fields; then the walk tracks its path. */
  fields: HiddenFields | undefined;
}

const childPath = (path: FieldPath | undefined, step: string | number): FieldPath | undefined =>
  path && [...path, step];

/**
 * `key` with Secret values and credential shapes hidden (whole when `whole`), marked
 * changed when base has a map here without that key; a number is added when two keys of
 * `out` would collide.
 */
function redactKey(
  key: string,
  ref: unknown,
  out: Record<string, unknown>,
  secrets: SecretValueIndex,
  whole = false,
): string {
  const changed = isRecord(ref) && !Object.hasOwn(ref, key);
  const mark = changed ? REDACTED_CHANGED : REDACTED;
  const redacted = whole ? mark : redactText(key, mark, secrets);
  if (redacted === key) return key;
  let unique = redacted;
  for (let n = 2; Object.hasOwn(out, unique); n++) unique = `${redacted}#${n}`;
  return unique;
}

function scrubRecord(
  value: Record<string, unknown>,
  ref: unknown,
  depth: number,
  hide: Hide,
  path: FieldPath | undefined,
): Record<string, unknown> {
  const refs = isRecord(ref) ? ref : {};
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const at = childPath(path, key);
    const named = SECRET_NAME.test(key) && typeof child === 'string';
    const redacted = named
      ? marker(child, refs[key])
      : scrub(child, refs[key], key, depth + 1, hide, at);
    const whole = at !== undefined && hide.fields?.key(at) === true;
    setOwn(out, redactKey(key, ref, out, hide.secrets, whole), redacted);
  }
  // An env var or similar `{ name, value }` pair naming a credential.
  if (typeof value['name'] === 'string' && SECRET_NAME.test(value['name']) && 'value' in value) {
    out['value'] = marker(value['value'], refs['value']);
  }
  return out;
}

/**
 * `value` with known Secret values and credential shapes replaced, and the fields the
 * producer marked hidden whole; `ref` is the value at the same place at base. A number
 * that reads as a Secret value (substitution re-reads the YAML) becomes a marker too.
 */
function scrub(
  value: unknown,
  ref: unknown,
  parentKey: string | undefined,
  depth: number,
  hide: Hide,
  path: FieldPath | undefined,
): unknown {
  if (path !== undefined && hide.fields?.value(path) === true) return marker(value, ref);
  if (depth > MAX_DEPTH) return REDACTED;
  const { secrets } = hide;
  if (typeof value === 'string') {
    const redacted = redactText(value, REDACTED, secrets);
    if (redacted === value) return value;
    return typeof ref === 'string' && ref !== value
      ? redactText(value, REDACTED_CHANGED, secrets)
      : redacted;
  }
  if (typeof value === 'number') {
    const text = String(value);
    return redactText(text, REDACTED, secrets) === text ? value : marker(value, ref);
  }
  if (Array.isArray(value)) {
    const out = value.slice();
    const refs = Array.isArray(ref) ? ref : undefined;
    for (const pair of pairListItems(parentKey, refs, value)) {
      if (pair.newIndex >= 0) {
        const at = childPath(path, pair.newIndex);
        out[pair.newIndex] = scrub(pair.new, pair.old, undefined, depth + 1, hide, at);
      }
    }
    return out;
  }
  if (isRecord(value)) return scrubRecord(value, ref, depth, hide, path);
  return value;
}

export function isSecret(manifest: Manifest): boolean {
  const meta = objectMeta(manifest);
  return meta.kind === 'Secret' && apiGroup(meta.apiVersion) === '';
}

/** A `data` value in comparable form: decoded when it is base64, else as written. */
function dataValue(value: unknown): string {
  const compact = typeof value === 'string' ? value.replace(/\s+/g, '') : '';
  if (typeof value === 'string' && compact.length % 4 === 0 && BASE64.test(compact)) {
    return `b:${Buffer.from(compact, 'base64').toString('base64')}`;
  }
  return `j:${JSON.stringify(value)}`;
}

/** One comparable form per key: `data` decoded, `stringData` encoded, stringData wins. */
function secretValues(manifest: Manifest | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const data = manifest?.['data'];
  const stringData = manifest?.['stringData'];
  if (isRecord(data)) {
    for (const [key, value] of Object.entries(data)) out.set(key, dataValue(value));
  }
  if (isRecord(stringData)) {
    for (const [key, value] of Object.entries(stringData)) {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      out.set(key, `b:${Buffer.from(text, 'utf8').toString('base64')}`);
    }
  }
  return out;
}

function redactSecretFields(
  out: Manifest,
  raw: Manifest,
  ref: Manifest | undefined,
  secrets: SecretValueIndex,
): void {
  const before = secretValues(ref);
  const after = secretValues(raw);
  for (const field of SECRET_FIELDS) {
    const values = raw[field];
    if (values === undefined || values === null) continue;
    if (!isRecord(values)) {
      out[field] = marker(values, ref?.[field]);
      continue;
    }
    const redacted: Record<string, unknown> = {};
    for (const key of Object.keys(values)) {
      const changed = before.has(key) && before.get(key) !== after.get(key);
      const value = changed ? REDACTED_CHANGED : REDACTED;
      setOwn(redacted, redactKey(key, ref?.[field], redacted, secrets), value);
    }
    out[field] = redacted;
  }
  if ('sops' in raw) out['sops'] = marker(raw['sops'], ref?.['sops']);
  const annotations = isRecord(out['metadata']) ? out['metadata']['annotations'] : undefined;
  if (isRecord(annotations) && LAST_APPLIED in annotations) {
    const refAnnotations = objectMeta(ref ?? {}).annotations;
    annotations[LAST_APPLIED] = marker(
      objectMeta(raw).annotations[LAST_APPLIED],
      refAnnotations[LAST_APPLIED],
    );
  }
}

function redactAgainst(
  manifest: Manifest,
  ref: Manifest | undefined,
  secrets: SecretValueIndex,
  derived: SecretDerived | undefined,
): Manifest {
  const fields = hiddenFields(derived);
  const hide = { secrets: addSecretValues(secrets, derived?.texts ?? []), fields };
  const out = scrub(manifest, ref, undefined, 0, hide, fields && []) as Manifest;
  if (isSecret(manifest)) redactSecretFields(out, manifest, ref, hide.secrets);
  return out;
}

/**
 * A copy with every Secret value, every occurrence of a known Secret value (`secrets`,
 * in any string or key) and credential-shaped string replaced by `<redacted>`, and the
 * text its producer derived from Secret values (`derived`) hidden.
 */
export function redactManifest(
  manifest: Manifest,
  secrets: SecretValueIndex = NO_SECRET_VALUES,
  derived?: SecretDerived,
): Manifest {
  return redactAgainst(manifest, undefined, secrets, derived);
}

export interface RedactedPair {
  old?: Manifest;
  new?: Manifest;
}

/** What each side's producer derived from Secret values (RenderedObject.secret). */
export interface DerivedPair {
  old?: SecretDerived | undefined;
  new?: SecretDerived | undefined;
}

/**
 * Both sides redacted; a head value that differs from base (by content: Secret `data`
 * is decoded and merged with `stringData`; a hidden field by its raw value at the paired
 * place) reads `<redacted:changed>`, so the line differs.
 */
export function redactPair(
  old: Manifest | undefined,
  next: Manifest | undefined,
  secrets: SecretValueIndex = NO_SECRET_VALUES,
  derived: DerivedPair = {},
): RedactedPair {
  const out: RedactedPair = {};
  if (old !== undefined) out.old = redactAgainst(old, undefined, secrets, derived.old);
  if (next !== undefined) out.new = redactAgainst(next, old, secrets, derived.new);
  return out;
}

/** Whether every Secret value of the manifest already reads as a redaction marker. */
export function fullyRedacted(manifest: Manifest | undefined): boolean {
  if (manifest === undefined || !isSecret(manifest)) return true;
  const markers = new Set([REDACTED, REDACTED_CHANGED]);
  const values = SECRET_FIELDS.flatMap((f) => {
    const v = manifest[f];
    return isRecord(v) ? Object.values(v) : v === undefined || v === null ? [] : [v];
  });
  const sops = manifest['sops'];
  return (
    values.every((v) => markers.has(v as string)) &&
    (sops === undefined || markers.has(sops as string))
  );
}
