/**
 * Reads the chart a Helm-rendered object came from (`helm.sh/chart`, or the older `chart`
 * label) from a RAW manifest: normalisation strips these labels before comparing.
 */
import { type Manifest, objectMeta } from '../model/index.js';

export interface ChartLabel {
  chart: string;
  /** SemVer as the chart declares it (Helm writes `+` as `_` in the label; undone here). */
  version: string;
}

// Chart names may hold dashes and digits; the version starts at the first `-<n>.<n>`.
const CHART_LABEL = /^(.+?)-(v?\d+\.\d+(?:\.\d+)?(?:[-_+][0-9A-Za-z.\-_]*)?)$/;

/** `{ chart: 'redis', version: '17.3.2' }` from `helm.sh/chart: redis-17.3.2`. */
export function chartLabelOf(manifest: Manifest): ChartLabel | undefined {
  const { labels, annotations } = objectMeta(manifest);
  const value = labels['helm.sh/chart'] ?? labels['chart'] ?? annotations['helm.sh/chart'];
  const match = value === undefined ? null : CHART_LABEL.exec(value);
  if (!match?.[1] || !match[2]) return undefined;
  return { chart: match[1], version: match[2].replace(/_/g, '+') };
}

/** The chart version of a Helm-rendered object, from its raw labels. */
export function chartVersionOf(manifest: Manifest): string | undefined {
  return chartLabelOf(manifest)?.version;
}
