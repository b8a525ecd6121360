/** Secret values never leave the renderer's memory: output shows keys, not values. */
import type { Manifest } from '../model/index.js';

export const REDACTED = '<redacted>';

function redactValues(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.keys(value).map((k) => [k, REDACTED]));
}

/** A copy of the manifest with every Secret data, stringData and SOPS value replaced. */
export function redactSecret(manifest: Manifest): Manifest {
  if (manifest['kind'] !== 'Secret' || manifest['apiVersion'] !== 'v1') return manifest;
  const out: Manifest = { ...manifest };
  for (const field of ['data', 'stringData'] as const) {
    if (field in out) out[field] = redactValues(out[field]);
  }
  if ('sops' in out) out['sops'] = REDACTED;
  return out;
}
