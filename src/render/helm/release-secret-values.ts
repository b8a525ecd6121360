/**
 * The values of a HelmRelease that come from a Secret: valuesFrom a Secret (or a ConfigMap
 * key derived from one), and whatever in its spec (values, a post-renderer patch...) its
 * parent substituted from one. A chart may copy them anywhere, so they are secret wherever
 * they land.
 */
import { Buffer } from 'node:buffer';
import { type SecretDerived, isRecord } from '../../model/index.js';
import { MIN_SECRET_VALUE_LENGTH, derivedFromSecret } from '../../redact/index.js';
import type { HelmRelease } from './helm-release.js';
import { type ConfigLookup, ValuesError, composeValues } from './values.js';

export type SecretKeysLookup = (
  kind: 'ConfigMap' | 'Secret',
  namespace: string,
  name: string,
) => ReadonlySet<string>;

/** Bounds the walk like every other one over repository data. */
const MAX_DEPTH = 512;

type Path = Array<string | number>;

/**
 * Strings as they are; numbers when marked as derived, or long enough to be searched for
 * (a values file in a Secret also sets `replicas: 3`).
 */
function leafText(value: unknown, derived: boolean): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'number' && typeof value !== 'bigint') return undefined;
  const text = String(value);
  return derived || text.length >= MIN_SECRET_VALUE_LENGTH ? text : undefined;
}

/** The leaves `keep` accepts; `derived` when each accepted one was marked as derived. */
function leaves(
  value: unknown,
  path: Path,
  keep: (path: Path, value: unknown) => boolean,
  derived: boolean,
): string[] {
  const out: string[] = [];
  const visit = (node: unknown, at: Path, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(node)) node.forEach((item, i) => visit(item, [...at, i], depth + 1));
    else if (isRecord(node)) {
      for (const [key, item] of Object.entries(node)) visit(item, [...at, key], depth + 1);
    } else if (keep(at, node)) {
      const text = leafText(node, derived);
      if (text !== undefined) out.push(text);
    }
  };
  visit(value, path, 0);
  return out;
}

/**
 * The values composed from the secret references alone, as composeValues types them
 * (YAML read, `--set` parsed at a targetPath), and the referenced texts as written.
 */
function valuesFromSecrets(
  hr: HelmRelease,
  lookup: ConfigLookup,
  secretKeys: SecretKeysLookup,
  namespace: string,
): string[] {
  const refs = (hr.spec.valuesFrom ?? []).filter((ref) =>
    secretKeys(ref.kind, namespace, ref.name).has(ref.valuesKey || 'values.yaml'),
  );
  const texts = refs.flatMap((ref) => {
    const data = lookup(ref.kind, namespace, ref.name) ?? {};
    const key = ref.valuesKey || 'values.yaml';
    const text = Object.hasOwn(data, key) ? data[key] : undefined;
    return text === undefined ? [] : [text];
  });
  if (refs.length === 0) return texts;
  const alone: HelmRelease = { ...hr, spec: { ...hr.spec, valuesFrom: refs, values: null } };
  try {
    return [...texts, ...leaves(composeValues(alone, lookup, namespace), [], () => true, false)];
  } catch (error) {
    // The release fails on the same values; its error message is redacted with the texts.
    if (error instanceof ValuesError) return texts;
    throw error;
  }
}

/**
 * Every value of the release that derives from a Secret (`derived`: what its parent's
 * substitution marked in it), and of those long enough to be searched for the forms chart
 * functions turn them into: `upper`, `lower`, and `b64enc` of each. Digests (`sha256sum`
 * of a rendered Secret, in checksum annotations) are not the value and stay readable;
 * `trunc`, `substr` and other partial copies are not followed.
 */
export function releaseSecretValues(
  hr: HelmRelease,
  lookup: ConfigLookup,
  secretKeys: SecretKeysLookup,
  defaultNamespace: string,
  derived: SecretDerived | undefined,
): string[] {
  const namespace = hr.metadata.namespace || defaultNamespace;
  const fromRefs = valuesFromSecrets(hr, lookup, secretKeys, namespace);
  const fromSpec =
    derived === undefined
      ? []
      : leaves(hr.spec, ['spec'], (at, value) => derivedFromSecret(derived, at, value), true);
  const values = [...new Set([...fromRefs, ...fromSpec])];
  const searchable = values.filter((v) => v.length >= MIN_SECRET_VALUE_LENGTH);
  const cased = searchable.flatMap((v) => [v.toUpperCase(), v.toLowerCase()]);
  const encoded = [...new Set([...searchable, ...cased])].map((v) =>
    Buffer.from(v, 'utf8').toString('base64'),
  );
  return [...new Set([...values, ...cased, ...encoded])];
}
