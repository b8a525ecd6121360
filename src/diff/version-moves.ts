/**
 * Version moves: changes that only move what version runs, the ones a bot makes every day.
 * An image tag or digest; a chart version (a HelmRelease's, a HelmChart's, an
 * OCIRepository's tag, semver range or digest, image values of a HelmRelease); and the
 * version labels a chart writes. Judged from field paths only, so no value is looked at.
 */
import { type FieldChange, type ResourceChange, apiGroup } from '../model/index.js';

const IMAGE =
  /^spec\.(?:jobTemplate\.spec\.)?(?:template\.spec\.)?(?:containers|initContainers|ephemeralContainers)\[[^\]]+\]\.image$/;
const LABELS = /^(?:spec\.(?:jobTemplate\.spec\.)?(?:template\.)?)?metadata\.labels(.+)$/;
const VERSION_LABELS = new Set(['helm.sh/chart', 'app.kubernetes.io/version']);
/** Last path segments of HelmRelease values that name an image tag or digest. */
const VALUES_IMAGE = /^spec\.values\.(?:.*\.)?(?:tag|digest|image)$/;
/** What picks an OCIRepository's artifact: a tag, a semver range, a digest. */
const OCI_REF = /^spec\.ref\.(?:tag|semver|digest)$/;

/** A label key from `.key`, `[key]`, `["key"]` or `['key']`. */
function labelKey(rest: string): string {
  const bracket = /^\[(["']?)(.+)\1\]$/.exec(rest);
  if (bracket?.[2]) return bracket[2];
  return rest.startsWith('.') ? rest.slice(1) : rest;
}

/**
 * A Flux source's version: an OCIRepository's ref (a digest may also be added or dropped,
 * as an image reference gains or loses one), a HelmChart's version. An OCIRepository is
 * judged by its own fields: what a new artifact changes in the rendered objects is in the
 * diff too, and judged the same way.
 */
function isSourceVersion(change: ResourceChange, field: FieldChange): boolean {
  if (change.kind !== 'OCIRepository' && change.kind !== 'HelmChart') return false;
  if (apiGroup(change.apiVersion) !== 'source.toolkit.fluxcd.io') return false;
  if (change.kind === 'OCIRepository') {
    return (
      field.path === 'spec.ref.digest' || (field.change === 'changed' && OCI_REF.test(field.path))
    );
  }
  return field.change === 'changed' && field.path === 'spec.version';
}

export function isVersionField(change: ResourceChange, field: FieldChange): boolean {
  if (isSourceVersion(change, field)) return true;
  if (field.change !== 'changed') return false;
  if (IMAGE.test(field.path)) return true;
  const labels = LABELS.exec(field.path);
  if (labels?.[1] && VERSION_LABELS.has(labelKey(labels[1]))) return true;
  if (change.kind === 'HelmRelease') {
    return field.path === 'spec.chart.spec.version' || VALUES_IMAGE.test(field.path);
  }
  return false;
}

/** A changed object whose every changed field is a version (isVersionField). */
export function isVersionMove(change: ResourceChange): boolean {
  return (
    change.status === 'changed' &&
    change.fields.length > 0 &&
    change.fields.every((field) => isVersionField(change, field))
  );
}
