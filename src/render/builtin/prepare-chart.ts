/**
 * Makes a resolved chart folder what source-controller and helm-controller hand to helm:
 * the default values merged from spec.chart.spec.valuesFiles, and the version
 * helm-controller records in Chart.yaml, where templates read it.
 */
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { type HelmRelease, type ResolvedChart, chartDefaultValues } from '../helm/index.js';
import { stringifyManifest } from '../../model/index.js';
import { replaceFile } from '../workspace/index.js';
import { parseFileDocuments } from '../../yaml/index.js';

export async function prepareChart(hr: HelmRelease, chart: ResolvedChart): Promise<void> {
  const spec = hr.spec.chart?.spec;
  // v2beta1's single valuesFile comes before valuesFiles, as source-controller merges them.
  const files = [...(spec?.valuesFile ? [spec.valuesFile] : []), ...(spec?.valuesFiles ?? [])];
  const defaults = await chartDefaultValues(
    chart.dir,
    files,
    spec?.ignoreMissingValuesFiles ?? false,
    chart.sourceRoot,
  );
  // JSON, not YAML: helm must read 'on', 'yes' and 0o17 back exactly as strings.
  if (defaults) await replaceFile(join(chart.dir, 'values.yaml'), JSON.stringify(defaults));
  const chartFile = join(chart.dir, 'Chart.yaml');
  const meta = parseFileDocuments(await readFile(chartFile, 'utf8')).documents[0]?.manifest;
  const version = withValuesFilesGeneration(chart.version, files);
  if (meta && meta['version'] !== version) {
    await replaceFile(chartFile, stringifyManifest({ ...meta, version }));
  }
}

/**
 * source-controller sets a chart built with valuesFiles (other than the lone default
 * values.yaml) to `VERSION+GENERATION` of its HelmChart, so consumers notice a values
 * change. The generation of a HelmChart helm-controller creates is 1 until its spec
 * changes, which is what a render can know.
 */
function withValuesFilesGeneration(version: string, files: readonly string[]): string {
  const effective =
    files.length === 1 && posix.normalize(files[0] ?? '') === 'values.yaml' ? [] : files;
  if (effective.length === 0) return version;
  return `${version.replace(/\+.*$/, '')}+1`;
}
