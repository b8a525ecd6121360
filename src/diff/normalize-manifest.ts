/**
 * Strips what changes on every render without changing the cluster (chart labels,
 * checksum annotations, kustomize index annotations, policy extras) before comparing.
 * Never used on what risk rules read: they read raw clusters (see chartVersionOf).
 */
import { type Manifest, isRecord, keyPath, listSegments } from '../model/index.js';
import type { Policy } from '../policy/index.js';

export type NormalizeRules = Policy['normalize'];

/**
 * Applied under every `metadata` (the object's, pod templates', claim templates'...),
 * never to selectors: a selector change is real. Names may use `*` as a glob.
 */
export const DEFAULT_NORMALIZE: NormalizeRules = {
  labels: ['helm.sh/chart', 'app.kubernetes.io/version', 'chart'],
  annotations: ['checksum/*', 'config.kubernetes.io/index', 'internal.config.kubernetes.io/index'],
  fields: [],
};

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A label or annotation name glob: `*` matches any run of characters. */
function nameGlob(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map(escapeRegExp).join('.*')}$`);
}

/**
 * A field path glob in FieldChange spelling: `status`, `spec.template.spec.containers[*].resources`,
 * `metadata.annotations["example.com/x"]`. `[*]` matches one list item, `*` one key.
 */
function pathGlob(glob: string): RegExp {
  const body = escapeRegExp(glob)
    .replace(/\\\[\\\*\\\]/g, '\\[(?:"(?:[^"\\\\]|\\\\.)*"|[^\\]]*)\\]')
    .replace(/\\\*/g, '[^.[]*');
  return new RegExp(`^${body}$`);
}

interface CompiledRules {
  labels: RegExp[];
  annotations: RegExp[];
  fields: RegExp[];
}

function compile(extra: NormalizeRules): CompiledRules {
  return {
    labels: [...DEFAULT_NORMALIZE.labels, ...extra.labels].map(nameGlob),
    annotations: [...DEFAULT_NORMALIZE.annotations, ...extra.annotations].map(nameGlob),
    fields: [...DEFAULT_NORMALIZE.fields, ...extra.fields].map(pathGlob),
  };
}

function canonicalNumber(value: unknown): unknown {
  if (typeof value === 'number' && Object.is(value, -0)) return 0;
  if (typeof value === 'bigint' && value <= MAX_SAFE && value >= -MAX_SAFE) return Number(value);
  return value;
}

function stripNames(map: Record<string, unknown>, globs: RegExp[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(map)) {
    if (!globs.some((g) => g.test(key))) out[key] = value;
  }
  return out;
}

function stripMetadata(
  meta: Record<string, unknown>,
  rules: CompiledRules,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...meta };
  for (const [field, globs] of [
    ['labels', rules.labels],
    ['annotations', rules.annotations],
  ] as const) {
    const map = out[field];
    if (!isRecord(map)) continue;
    const kept = stripNames(map, globs);
    // Empty and absent are the same to the API server: "only chart labels", "labels: {}"
    // and no labels at all compare equal.
    if (Object.keys(kept).length === 0) delete out[field];
    else out[field] = kept;
  }
  return out;
}

function normalizeValue(
  value: unknown,
  path: string,
  parentKey: string | undefined,
  rules: CompiledRules,
): unknown {
  if (Array.isArray(value)) {
    const segments = listSegments(parentKey, value);
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const itemPath = path + (segments[i] ?? `[${i}]`);
      if (!rules.fields.some((g) => g.test(itemPath))) {
        out.push(normalizeValue(item, itemPath, undefined, rules));
      }
    });
    return out;
  }
  if (isRecord(value)) {
    const source = parentKey === 'metadata' ? stripMetadata(value, rules) : value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(source)) {
      const childPath = keyPath(path, key);
      if (rules.fields.some((g) => g.test(childPath))) continue;
      out[key] = normalizeValue(child, childPath, key, rules);
    }
    return out;
  }
  return canonicalNumber(value);
}

/** Normalises manifests with the defaults plus the policy's extras. */
export function createNormalizer(extra: NormalizeRules): (manifest: Manifest) => Manifest {
  const rules = compile(extra);
  return (manifest) => normalizeValue(manifest, '', undefined, rules) as Manifest;
}
