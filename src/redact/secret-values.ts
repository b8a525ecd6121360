/**
 * The values of every Secret both sides rendered, to hide them wherever else they turn up:
 * postBuild.substituteFrom and Helm valuesFrom copy Secret values into ConfigMaps,
 * Certificates, URLs, env vars...
 */
import {
  type Manifest,
  type RenderedCluster,
  type SecretDerived,
  isSopsEncrypted,
  readConfigData,
} from '../model/index.js';
import { isSecret } from './redact-manifest.js';
import { type SecretValueIndex, indexSecretValues } from './redact-text.js';

/**
 * Each value as the API server holds it (data decoded, stringData over it), as substitution
 * writes it (newlines removed) and, for `data`, as written (base64), and the text producers
 * derived from Secret values (RenderedObject.secret). SOPS values are not known offline.
 * Values shorter than MIN_SECRET_VALUE_LENGTH are left out.
 */
export function secretValuesOf(...clusters: readonly RenderedCluster[]): SecretValueIndex {
  const values: string[] = [];
  for (const cluster of clusters) {
    for (const { manifest, secret } of cluster.objects) {
      if (secret !== undefined)
        values.push(...secret.texts, ...derivedFieldValues(manifest, secret));
      if (!isSecret(manifest) || isSopsEncrypted(manifest)) continue;
      for (const value of Object.values(readConfigData(manifest))) {
        values.push(value, value.replaceAll('\n', ''));
      }
      const data = manifest['data'];
      if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
        for (const raw of Object.values(data)) if (typeof raw === 'string') values.push(raw);
      }
    }
  }
  return indexSecretValues(values);
}

/**
 * The whole string values of fields hidden because a derived piece of them is too short to
 * search for (`name: db-${PASS:0:2}`): the field's full text is specific enough to hide
 * wherever it is quoted, an object's name above all.
 */
function derivedFieldValues(manifest: Manifest, secret: SecretDerived): string[] {
  const values: string[] = [];
  for (const { path, key } of secret.fields) {
    if (key) continue;
    let at: unknown = manifest;
    for (const step of path) {
      at =
        at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[step] : undefined;
    }
    if (typeof at === 'string') values.push(at);
  }
  return values;
}
