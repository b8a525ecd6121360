/**
 * The values of every Secret both sides rendered, to hide them wherever else they turn up:
 * postBuild.substituteFrom and Helm valuesFrom copy Secret values into ConfigMaps,
 * Certificates, URLs, env vars...
 */
import { type RenderedCluster, isSopsEncrypted, readConfigData } from '../model/index.js';
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
      if (secret !== undefined) values.push(...secret.texts);
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
