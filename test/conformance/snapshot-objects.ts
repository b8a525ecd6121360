/**
 * What both conformance suites do to compare objects with flux-local's snapshots: drop
 * the bookkeeping annotations the README says to drop, and compare with sorted keys.
 */
import type { Manifest } from '../../src/model/render.js';

const INDEX_ANNOTATIONS = ['config.kubernetes.io/index', 'internal.config.kubernetes.io/index'];

/** A copy without kustomize's index annotations (and without an annotations map left empty). */
export function withoutIndex(manifest: Manifest): Manifest {
  const copy = structuredClone(manifest);
  const metadata = copy['metadata'] as Record<string, unknown>;
  const annotations = metadata['annotations'] as Record<string, unknown> | undefined;
  if (annotations) {
    for (const key of INDEX_ANNOTATIONS) delete annotations[key];
    if (Object.keys(annotations).length === 0) delete metadata['annotations'];
  }
  return copy;
}

export function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortDeep((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
