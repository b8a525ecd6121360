/**
 * How a release's rendered objects name the template they came from: helm says
 * `CHART/templates/x.yaml`; a chart inside a source folder is shown by its path there
 * (with the source's prefix when the source is not the reviewed repository), any other
 * chart as `SOURCE:CHART/templates/x.yaml`.
 */
import { posix } from 'node:path';
import type { HelmRelease, ResolvedChart } from '../helm/index.js';

export type TemplateNaming = { source: string } | { prefix: string; chartPath: string };

export async function templateNaming(
  filePrefix: (kind: string, namespace: string, name: string) => Promise<string>,
  hr: HelmRelease,
  chart: ResolvedChart,
): Promise<TemplateNaming> {
  const spec = hr.spec.chart?.spec;
  if (chart.sourceRoot === undefined || !spec) return { source: chart.source };
  const ref = spec.sourceRef;
  const prefix = await filePrefix(ref.kind, ref.namespace ?? hr.metadata.namespace ?? '', ref.name);
  const chartPath = posix.normalize(spec.chart.replace(/^\.?\/+/, '')).replace(/\/+$/, '');
  return { prefix, chartPath };
}

export function templateFile(
  naming: TemplateNaming,
  template: string | undefined,
): string | undefined {
  if (template === undefined) return undefined;
  if ('source' in naming) return `${naming.source}:${template}`;
  const inChart = template.slice(template.indexOf('/') + 1);
  return `${naming.prefix}${naming.chartPath === '.' ? inChart : `${naming.chartPath}/${inChart}`}`;
}
