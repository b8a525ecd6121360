/**
 * Whether part of a rendered object derives from a Secret value, so that what a producer
 * reads from it stays secret in turn: a ConfigMap key filled from a Secret and substituted
 * again, a HelmRelease's values written from a Secret.
 */
import {
  type Manifest,
  type SecretDerived,
  isSopsEncrypted,
  readConfigData,
} from '../model/index.js';
import type { FieldPath } from './hidden-fields.js';

function startsWith(path: FieldPath, prefix: FieldPath): boolean {
  return prefix.length <= path.length && prefix.every((step, i) => step === path[i]);
}

/**
 * True when the value at `path` (or anything inside it, or its key) was marked as derived,
 * or when `value` is a string holding derived text.
 */
export function derivedFromSecret(
  derived: SecretDerived | undefined,
  path: FieldPath,
  value: unknown,
): boolean {
  if (derived === undefined) return false;
  if (derived.fields.some((f) => startsWith(path, f.path) || startsWith(f.path, path))) {
    return true;
  }
  return typeof value === 'string' && derived.texts.some((text) => value.includes(text));
}

/**
 * The keys of a ConfigMap or Secret (read as readConfigData reads it) whose values are
 * secret: every key of a Secret, the derived keys of a ConfigMap. A SOPS-encrypted
 * Secret's values are placeholders, known to everyone.
 */
export function secretKeysOf(manifest: Manifest, derived?: SecretDerived): Set<string> {
  const data = readConfigData(manifest);
  if (manifest['kind'] !== 'ConfigMap') {
    return new Set(isSopsEncrypted(manifest) ? [] : Object.keys(data));
  }
  const keys = Object.keys(data).filter((k) => derivedFromSecret(derived, ['data', k], data[k]));
  return new Set(keys);
}
