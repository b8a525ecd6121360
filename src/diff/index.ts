/**
 * The diff step: pairs a cluster's objects at base and head by identity, normalises
 * render noise, and says what changed, redacted. It must not judge risk or format
 * reports, and no Secret value may survive into anything it returns.
 */
import type { ClusterDiff, RenderedCluster, ResourceChange } from '../model/index.js';
import type { Policy } from '../policy/index.js';
import { secretValuesOf } from '../redact/index.js';
import { diffObject } from './diff-object.js';
import { createNormalizer } from './normalize-manifest.js';
import { pairObjects } from './pair-objects.js';
import { summarize } from './summarize.js';

export { chartSlots } from './chart-changes.js';
export type { ChartSlot, RedactedObjects } from './chart-changes.js';
export { chartLabelOf, chartVersionOf } from './chart-version-of.js';
export type { ChartLabel } from './chart-version-of.js';
export { parseImage } from './parse-image.js';
export type { ImageRef } from './parse-image.js';
export { redactChange } from './redact-change.js';
export { isVersionMove } from './version-moves.js';

export interface DiffOptions {
  /** The cluster (entry path name) both sides were rendered for. */
  cluster: string;
  /** The policy's extra normalisation, applied on top of DEFAULT_NORMALIZE. */
  normalize: Policy['normalize'];
}

/**
 * Every object that differs between base and head, sorted by id, and their summary.
 * Every value of a Secret of either side (at least MIN_SECRET_VALUE_LENGTH characters
 * long) is hidden wherever it occurs: in other objects' strings and keys, hence in field
 * paths and text diffs, and in render error messages. Shorter values cannot be hidden
 * outside their Secret without destroying the diff, except where a producer marked the
 * text it derived from one (RenderedObject.secret): those fields are hidden whole.
 */
export function diffClusters(
  base: RenderedCluster,
  head: RenderedCluster,
  opts: DiffOptions,
): ClusterDiff {
  const normalize = createNormalizer(opts.normalize);
  const secrets = secretValuesOf(base, head);
  const changes: ResourceChange[] = [];
  for (const pair of pairObjects(base.objects, head.objects)) {
    const change = diffObject(pair, normalize, opts.cluster, secrets);
    if (change !== undefined) changes.push(change);
  }
  return { cluster: opts.cluster, changes, summary: summarize(changes, base, head, secrets) };
}
