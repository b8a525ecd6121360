/**
 * The canonical text of a manifest: YAML with sorted keys and no line folding, the same on
 * every run, so rendered output is stable and text diffs show only real changes.
 */
import { stringify } from 'yaml';
import type { Manifest } from './render.js';

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

/** One manifest as YAML with sorted keys and no line folding, so output is stable. */
export function stringifyManifest(manifest: Manifest): string {
  return stringify(sortKeys(manifest), { lineWidth: 0, aliasDuplicateObjects: false });
}

export function stringifyStream(manifests: readonly Manifest[]): string {
  return manifests.map((m) => `---\n${stringifyManifest(m)}`).join('');
}
