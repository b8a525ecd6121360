/**
 * Routine changes: the ones a bot makes every day (image tags and digests, chart
 * versions) and nothing else. Judged from the diff's field paths, so Secret values are
 * never looked at.
 */
import type { FieldChange, ResourceChange } from '../model/index.js';

const IMAGE =
  /^spec\.(?:jobTemplate\.spec\.)?(?:template\.spec\.)?(?:containers|initContainers|ephemeralContainers)\[[^\]]+\]\.image$/;
const LABELS = /^(?:spec\.(?:jobTemplate\.spec\.)?(?:template\.)?)?metadata\.labels(.+)$/;
const VERSION_LABELS = new Set(['helm.sh/chart', 'app.kubernetes.io/version']);
/** Last path segments of HelmRelease values that name an image tag or digest. */
const VALUES_IMAGE = /^spec\.values\.(?:.*\.)?(?:tag|digest|image)$/;

/** A label key from `.key`, `[key]`, `["key"]` or `['key']`. */
function labelKey(rest: string): string {
  const bracket = /^\[(["']?)(.+)\1\]$/.exec(rest);
  if (bracket?.[2]) return bracket[2];
  return rest.startsWith('.') ? rest.slice(1) : rest;
}

export function isRoutineField(change: ResourceChange, field: FieldChange): boolean {
  if (field.change !== 'changed') return false;
  if (IMAGE.test(field.path)) return true;
  const labels = LABELS.exec(field.path);
  if (labels?.[1] && VERSION_LABELS.has(labelKey(labels[1]))) return true;
  if (change.kind === 'HelmRelease') {
    return field.path === 'spec.chart.spec.version' || VALUES_IMAGE.test(field.path);
  }
  return false;
}

export function isRoutineChange(change: ResourceChange): boolean {
  return (
    change.status === 'changed' &&
    change.fields.length > 0 &&
    change.fields.every((field) => isRoutineField(change, field))
  );
}
