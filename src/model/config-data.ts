/**
 * The string data of ConfigMaps and Secrets as the API server would hold it, for
 * substitution and values lookups. Secret values stay inside the renderer.
 */
import { isRecord } from './records.js';
import type { Manifest } from './render.js';

/** Values of a SOPS-encrypted Secret cannot be known offline; they read as this marker. */
export function sopsPlaceholder(key: string): string {
  return `..SOPS_${key}..`;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string') out[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    }
  }
  return out;
}

export function isSopsEncrypted(manifest: Manifest): boolean {
  return manifest['sops'] !== undefined && manifest['sops'] !== null;
}

/** ConfigMap data, or Secret data decoded with stringData merged over it. */
export function readConfigData(manifest: Manifest): Record<string, string> {
  if (manifest['kind'] === 'ConfigMap') return stringMap(manifest['data']);
  const data = stringMap(manifest['data']);
  const stringData = stringMap(manifest['stringData']);
  const out: Record<string, string> = {};
  if (isSopsEncrypted(manifest)) {
    for (const key of [...Object.keys(data), ...Object.keys(stringData)])
      out[key] = sopsPlaceholder(key);
    return out;
  }
  for (const [k, v] of Object.entries(data)) out[k] = Buffer.from(v, 'base64').toString('utf8');
  return Object.assign(out, stringData);
}
