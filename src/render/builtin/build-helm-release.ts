/**
 * Inflates one HelmRelease as helm-controller would: resolve its chart, compose its
 * values, `helm template`, then the post-render steps. Every failure is this
 * HelmRelease's error; the HelmRelease object itself stays with its Kustomization.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { classify, errorMessage } from '../../errors.js';
import type { ToolRunner } from '../../tool-runner.js';
import type { HelmSettings, RenderSettings } from '../engine.js';
import { describeSchemaError } from '../flux/index.js';
import {
  type ChartSourceContext,
  ChartUnavailableError,
  type ConfigLookup,
  HelmRelease,
  type ResolvedChart,
  type SecretKeysLookup,
  type TemplateCache,
  chartCrdsMode,
  chartDefaultValues,
  composeValues,
  helmTemplate,
  postRender,
  releaseName,
  releaseNamespace,
  releaseSecretValues,
  resolveChart,
  takeTemplateSource,
} from '../helm/index.js';
import {
  type Manifest,
  type ProducerRef,
  type RenderErrorTags,
  type RenderedObject,
  type SecretDerived,
  stringifyManifest,
} from '../../model/index.js';
import { REDACTED, indexSecretValues, redactText, secretTextIn } from '../../redact/index.js';
import { replaceFile } from '../tree.js';
import { parseDocuments } from '../yaml.js';

export interface HelmBuildContext {
  /** '' when a source is the reviewed repository, else the prefix its files are shown with. */
  filePrefix: (kind: string, namespace: string, name: string) => Promise<string>;
  runner: ToolRunner;
  settings: RenderSettings;
  scratchDir: () => string;
  /** Absent: every release runs helm template. */
  templateCache?: TemplateCache | undefined;
  configData: ConfigLookup;
  secretKeys: SecretKeysLookup;
  chartSources: Omit<
    ChartSourceContext,
    'runner' | 'cacheDir' | 'offline' | 'timeoutMs' | 'maxChartBytes'
  >;
}

/** `assumed`: what the release took as given of sources only the cluster holds (see Producer). */
export type HelmBuildOutcome =
  | { objects: RenderedObject[]; chart: string; assumed?: string[] }
  | ({ error: string } & RenderErrorTags);

/**
 * The chart's objects, each with where it holds Helm values that came from a Secret; an
 * error message (helm quotes values in `fail` and `required`) has their text hidden.
 */
export async function buildHelmRelease(
  ctx: HelmBuildContext,
  ref: ProducerRef,
  manifest: Manifest,
  secret?: SecretDerived,
): Promise<HelmBuildOutcome> {
  const parsed = HelmRelease.safeParse(manifest);
  if (!parsed.success)
    return { error: `invalid HelmRelease: ${describeSchemaError(parsed.error)}` };
  const hr = parsed.data;
  hr.metadata.namespace ??= ref.namespace;
  const secretValues = releaseSecretValues(
    hr,
    ctx.configData,
    ctx.secretKeys,
    ref.namespace,
    secret,
  );
  const outcome = await inflate(ctx, ref, hr);
  if ('error' in outcome) {
    const secrets = indexSecretValues(secretValues);
    return { ...outcome, error: redactText(outcome.error, REDACTED, secrets) };
  }
  for (const object of outcome.objects) {
    const derived = secretTextIn(object.manifest, secretValues);
    if (derived !== undefined) object.secret = derived;
  }
  return outcome;
}

async function inflate(
  ctx: HelmBuildContext,
  ref: ProducerRef,
  hr: HelmRelease,
): Promise<HelmBuildOutcome> {
  const helm = ctx.settings.helm;
  const scratch = ctx.scratchDir();
  await mkdir(scratch, { recursive: true });
  try {
    const chart = await resolveChart(hr, chartContext(ctx, helm), scratch);
    await prepareChart(hr, chart);
    const namespace = releaseNamespace(hr, ref.namespace);
    const { values, assumed } = releaseValues(ctx, hr, ref);
    const limits = {
      timeoutMs: ctx.settings.toolTimeoutMs,
      maxOutputBytes: ctx.settings.maxOutputBytes,
    };
    const rendered = await helmTemplate(
      ctx.runner,
      {
        chartDir: chart.dir,
        releaseName: releaseName(hr),
        namespace,
        values,
        apiVersions: helm.apiVersions,
        ...(helm.kubeVersion !== undefined ? { kubeVersion: helm.kubeVersion } : {}),
        crds: chartCrdsMode(hr, helm.skipCrds),
        isUpgrade: helm.isUpgrade,
        ...actionFlags(hr, helm.isUpgrade),
        includeTests: hr.spec.test?.enable === true,
        ...limits,
      },
      scratch,
      ctx.templateCache,
    );
    const objects = await postRender(ctx.runner, rendered, hr, namespace, scratch, limits);
    const fileOf = await templateFiles(ctx, hr, chart);
    return {
      objects: objects.map((manifest) => {
        const file = fileOf(takeTemplateSource(manifest));
        return file === undefined ? { producer: ref, manifest } : { producer: ref, file, manifest };
      }),
      chart: `${chart.source}@${chart.version}`,
      ...(assumed.length > 0 ? { assumed } : {}),
    };
  } catch (err) {
    // A cancelled review is not this release's failure: the whole render stops.
    if (classify(err) === 'cancelled') throw err;
    if (err instanceof ChartUnavailableError) {
      return { error: errorMessage(err), code: 'chart-unavailable', offline: err.notCached };
    }
    return { error: errorMessage(err) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The values helm gets, and a sentence per valuesFrom source only the cluster holds, which
 * settings.inClusterSources `assume` leaves out instead of failing the release.
 */
function releaseValues(
  ctx: HelmBuildContext,
  hr: HelmRelease,
  ref: ProducerRef,
): { values: Record<string, unknown>; assumed: string[] } {
  const unknown = new Set<string>();
  const options =
    ctx.settings.inClusterSources === 'assume'
      ? { unknown: (source: string) => unknown.add(source) }
      : {};
  const values = composeValues(hr, ctx.configData, ref.namespace, options);
  const assumed = [...unknown].map(
    (source) => `the rendered cluster has no ${source}: valuesFrom leaves its values out`,
  );
  return { values, assumed };
}

function chartContext(ctx: HelmBuildContext, helm: HelmSettings): ChartSourceContext {
  return {
    ...ctx.chartSources,
    runner: ctx.runner,
    cacheDir: helm.chartCacheDir,
    offline: helm.offline,
    timeoutMs: ctx.settings.toolTimeoutMs,
    maxChartBytes: helm.maxChartBytes,
    network: helm.network,
  };
}

/** The install or upgrade switches that change what helm renders, for the action rendered. */
function actionFlags(hr: HelmRelease, isUpgrade: boolean) {
  const action = isUpgrade ? hr.spec.upgrade : hr.spec.install;
  return {
    disableHooks: action?.disableHooks ?? false,
    disableOpenAPIValidation: action?.disableOpenAPIValidation ?? false,
    disableSchemaValidation: action?.disableSchemaValidation ?? false,
  };
}

/**
 * Makes the chart folder what source-controller and helm-controller hand to helm: the
 * default values merged from spec.chart.spec.valuesFiles, and the version helm-controller
 * records (an OCIRepository digest suffix) in Chart.yaml, where templates read it.
 */
async function prepareChart(hr: HelmRelease, chart: ResolvedChart): Promise<void> {
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
  const meta = parseDocuments(await readFile(chartFile, 'utf8')).documents[0]?.manifest;
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

/**
 * Maps helm's `CHART/templates/x.yaml` to where the template lives: a repository path
 * for a chart inside a source folder, `SOURCE:CHART/templates/x.yaml` otherwise.
 */
async function templateFiles(
  ctx: HelmBuildContext,
  hr: HelmRelease,
  chart: ResolvedChart,
): Promise<(template: string | undefined) => string | undefined> {
  const spec = hr.spec.chart?.spec;
  if (chart.sourceRoot === undefined || !spec) {
    return (template) => (template === undefined ? undefined : `${chart.source}:${template}`);
  }
  const ref = spec.sourceRef;
  const prefix = await ctx.filePrefix(
    ref.kind,
    ref.namespace ?? hr.metadata.namespace ?? '',
    ref.name,
  );
  const chartPath = posix.normalize(spec.chart.replace(/^\.?\/+/, '')).replace(/\/+$/, '');
  return (template) => {
    if (template === undefined) return undefined;
    const inChart = template.slice(template.indexOf('/') + 1);
    return `${prefix}${chartPath === '.' ? inChart : `${chartPath}/${inChart}`}`;
  };
}
