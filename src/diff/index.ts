/**
 * The diff step: pairs a cluster's objects at base and head by identity, normalises
 * render noise, and says what changed, redacted. It must not judge risk or format
 * reports, and no Secret value may survive into anything it returns.
 */
import type { RenderedCluster } from '../render/model.js';
import type { Policy } from '../risk/policy-types.js';
import { diffObject } from './diff-object.js';
import { createNormalizer } from './normalize-manifest.js';
import { pairObjects } from './pair-objects.js';
import { summarize } from './summarize.js';
import type { ClusterDiff, ResourceChange } from './types.js';

export type * from './types.js';
export { chartLabelOf, chartVersionOf } from './chart-version-of.js';
export type { ChartLabel } from './chart-version-of.js';
export { fieldChanges } from './field-changes.js';
export { containerImages, imageChanges } from './image-changes.js';
export { DEFAULT_NORMALIZE, createNormalizer, normalizeManifest } from './normalize-manifest.js';
export type { NormalizeRules } from './normalize-manifest.js';
export { pairObjects } from './pair-objects.js';
export type { ObjectPair } from './pair-objects.js';
export { parseImage } from './parse-image.js';
export type { ImageRef } from './parse-image.js';
export { isSecret, redactChange, redactManifest, redactPair } from './redact-manifest.js';
export type { RedactedPair } from './redact-manifest.js';
export { REDACTED, REDACTED_CHANGED, hasSecretShape, redactText } from './redact-text.js';
export { renderErrorChanges } from './render-error-changes.js';
export { summarize } from './summarize.js';
export { DIFF_CONTEXT_LINES, objectLabel, textDiff } from './text-diff.js';

export interface DiffOptions {
  /** The cluster (entry path name) both sides were rendered for. */
  cluster: string;
  /** The policy's extra normalisation, applied on top of DEFAULT_NORMALIZE. */
  normalize: Policy['normalize'];
}

/** Every object that differs between base and head, sorted by id, and their summary. */
export function diffClusters(
  base: RenderedCluster,
  head: RenderedCluster,
  opts: DiffOptions,
): ClusterDiff {
  const normalize = createNormalizer(opts.normalize);
  const changes: ResourceChange[] = [];
  for (const pair of pairObjects(base.objects, head.objects)) {
    const change = diffObject(pair, normalize, opts.cluster);
    if (change !== undefined) changes.push(change);
  }
  return { cluster: opts.cluster, changes, summary: summarize(changes, base, head) };
}
