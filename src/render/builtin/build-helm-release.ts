/**
 * Inflates one HelmRelease as helm-controller would: resolve its chart, compose its
 * values, `helm template`, then the post-render steps. Every failure is this
 * HelmRelease's error; the HelmRelease object itself stays with its Kustomization.
 */
import { mkdir, rm } from 'node:fs/promises';
import { posix } from 'node:path';
import { classify, errorMessage } from '../../errors.js';
import type { ToolRunner } from '../../tool-runner.js';
import type { HelmSettings, RenderSettings } from '../settings.js';
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
  producerKey as producerRefKey,
} from '../../model/index.js';
import { REDACTED, indexSecretValues, redactText, secretTextIn } from '../../redact/index.js';
import { reuse, reuseOrBuild, type MemoOutcome } from '../cache/index.js';
import {
  missingSourceKey,
  releasePreKey,
  type ReleaseKeying,
  releaseKey,
  type KeyedOutcome,
  withInputKey,
} from './reuse/index.js';
import { prepareChart } from './prepare-chart.js';
import type { ToolServer } from '../kustomize/index.js';
import { lackingInput, lackingMessage } from './lacking-input.js';
import { templateFile, templateNaming, type TemplateNaming } from './template-naming.js';

export interface HelmBuildContext {
  /** '' when a source is the reviewed repository, else the prefix its files are shown with. */
  filePrefix: (kind: string, namespace: string, name: string) => Promise<string>;
  runner: ToolRunner;
  settings: RenderSettings;
  scratchDir: () => string;
  /** Absent: every release runs helm template. */
  templateCache?: TemplateCache | undefined;
  /** Renders through one helm-server process; absent: a helm process per release. */
  helmServer?: ToolServer | undefined;
  /**
   * The review's other render, by release key, and the versions of the tools a release runs
   * (helm, kustomize for post-renderers); absent: every release inflates.
   */
  keying?: ReleaseKeying | undefined;
  configData: ConfigLookup;
  secretKeys: SecretKeysLookup;
  /** Files of the reviewed revision whose content the repository lacks (see materialize). */
  lacking: ReadonlySet<string>;
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
): Promise<KeyedOutcome<HelmBuildOutcome>> {
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
  const release = { ref, manifest, hr, secretValues };
  return (await carriedRelease(ctx, release)) ?? inflate(ctx, release);
}

/** One release to inflate, with the Secret-derived texts its values hold. */
interface Release {
  ref: ProducerRef;
  manifest: Manifest;
  hr: HelmRelease;
  secretValues: string[];
}

/**
 * The release's outcome kept under the key the review's other render recorded for the same
 * pre-key (reuse/carried-release.ts); undefined: resolve its chart to key it. Values that fail to
 * compose fail the release in inflate, after its chart, as they always did.
 */
async function carriedRelease(
  ctx: HelmBuildContext,
  release: Release,
): Promise<KeyedOutcome<HelmBuildOutcome> | undefined> {
  const keying = ctx.keying;
  const carried = keying?.reads?.carried;
  if (keying === undefined || carried === undefined) return undefined;
  let pre: string | undefined;
  try {
    pre = preKey(ctx, keying, release);
  } catch (err) {
    if (classify(err) === 'cancelled') throw err;
    return undefined;
  }
  const producer = producerRefKey(release.ref);
  const key = pre && carried.release(producer, pre);
  const outcome = key && (await reuse(keying, key, releaseOutcome));
  if (!key || !outcome || !pre) return undefined;
  carried.taken += 1;
  keying.reads?.record.set(producer, { pre, key });
  return withInputKey(outcome, key);
}

/** The release's pre-key, from its values and options, which its chart does not change. */
function preKey(ctx: HelmBuildContext, keying: ReleaseKeying, release: Release) {
  const { ref, hr } = release;
  const namespace = releaseNamespace(hr, ref.namespace);
  const { values, assumed } = releaseValues(ctx, hr, ref);
  const options = templateOptions(ctx.settings, hr, namespace, values);
  return releasePreKey(
    { tool: keying.tool, ...release, options, assumed },
    ctx.chartSources.lookup,
  );
}

async function inflate(
  ctx: HelmBuildContext,
  release: Release,
): Promise<KeyedOutcome<HelmBuildOutcome>> {
  const { ref, hr } = release;
  const helm = ctx.settings.helm;
  const scratch = ctx.scratchDir();
  await mkdir(scratch, { recursive: true });
  // What an earlier definition of the release recorded is this one's to say again.
  ctx.keying?.reads?.unavailable.delete(producerRefKey(ref));
  let key: string | undefined;
  try {
    const chart = await resolveChart(hr, chartContext(ctx, helm), scratch);
    await prepareChart(hr, chart);
    const namespace = releaseNamespace(hr, ref.namespace);
    const { values, assumed } = releaseValues(ctx, hr, ref);
    const options = templateOptions(ctx.settings, hr, namespace, values);
    const limits = { timeoutMs: options.timeoutMs, maxOutputBytes: options.maxOutputBytes };
    const naming = await templateNaming(ctx.filePrefix, hr, chart);
    const lacking = chartLacking(ctx.lacking, hr, chart, naming);
    if (lacking !== undefined)
      return withSecretsMarked(release, { error: lackingMessage(lacking) });
    const keying = ctx.keying;
    if (keying) key = releaseKey(keying.tool, { ...release, chart, options, naming, assumed });
    // What the next render needs to find this key without the chart (reuse/carried-release.ts).
    const record = keying?.reads?.record;
    if (keying && key !== undefined && record) {
      const parts = { tool: keying.tool, ...release, options, assumed };
      const pre = releasePreKey(parts, ctx.chartSources.lookup);
      if (pre !== undefined) record.set(producerRefKey(ref), { pre, key });
    }
    const outcome = await reuseOrBuild(keying ?? {}, key, releaseOutcome, async () => {
      const chartDir = chart.dir;
      const rendered = await helmTemplate(
        ctx.runner,
        { chartDir, ...options },
        scratch,
        ctx.templateCache,
        ctx.helmServer,
      );
      const objects = await postRender(ctx.runner, rendered, hr, namespace, scratch, limits);
      return withSecretsMarked(release, {
        objects: objects.map((manifest) => {
          const file = templateFile(naming, takeTemplateSource(manifest));
          return file === undefined
            ? { producer: ref, manifest }
            : { producer: ref, file, manifest };
        }),
        chart: `${chart.source}@${chart.version}`,
        ...(assumed.length > 0 ? { assumed } : {}),
      });
    });
    return withInputKey(outcome, key);
  } catch (err) {
    // A cancelled review is not this release's failure: the whole render stops.
    if (classify(err) === 'cancelled') throw err;
    const outcome = withSecretsMarked(
      release,
      err instanceof ChartUnavailableError
        ? { error: errorMessage(err), code: 'chart-unavailable', offline: err.notCached }
        : { error: errorMessage(err) },
    );
    // A failure the memory holds lets the render be kept, and read back while it holds it.
    if (err instanceof ChartUnavailableError && err.remembered)
      ctx.keying?.reads?.unavailable.set(producerRefKey(ref), err.remembered);
    // Unavailable charts and timeouts may pass: the other revision's render tries again.
    const transient = classify(err) === 'transient';
    key ??= transient ? undefined : keyOfMissingSource(ctx, release, errorMessage(err));
    ctx.keying?.memo?.note(transient ? undefined : key, outcome, 'rendered');
    return withInputKey(outcome, transient ? undefined : key);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * A key for a release that failed before its chart resolved because the first source it
 * names (chartRef, or the chart template's sourceRef) is not in the rendered cluster: the
 * commit decides that, so its render may be kept whole like any other (whole-render.ts).
 * Undefined for every other failure.
 */
function keyOfMissingSource(
  ctx: HelmBuildContext,
  release: Release,
  error: string,
): string | undefined {
  const { hr, ref } = release;
  const first = hr.spec.chartRef ?? hr.spec.chart?.spec.sourceRef;
  if (ctx.keying === undefined || first === undefined) return undefined;
  const namespace = first.namespace ?? ref.namespace;
  if (ctx.chartSources.lookup(first.kind, namespace, first.name) !== undefined) return undefined;
  const source = `${first.kind}/${namespace}/${first.name}`;
  return missingSourceKey(ctx.keying.tool, { ...release, source, error });
}

/** The outcome with Secret-derived text marked on its objects, or hidden in its error. */
function withSecretsMarked(release: Release, outcome: HelmBuildOutcome): HelmBuildOutcome {
  if ('error' in outcome) {
    const secrets = indexSecretValues(release.secretValues);
    return { ...outcome, error: redactText(outcome.error, REDACTED, secrets) };
  }
  for (const object of outcome.objects) {
    const derived = secretTextIn(object.manifest, release.secretValues);
    if (derived !== undefined) object.secret = derived;
  }
  return outcome;
}

/** A file of a chart in the reviewed repository, or of its values files, that it lacks. */
function chartLacking(
  lacking: ReadonlySet<string>,
  hr: HelmRelease,
  chart: ResolvedChart,
  naming: TemplateNaming,
): string | undefined {
  if (chart.sourceRoot === undefined || !('prefix' in naming) || naming.prefix !== '')
    return undefined;
  const spec = hr.spec.chart?.spec;
  const values = [...(spec?.valuesFile ? [spec.valuesFile] : []), ...(spec?.valuesFiles ?? [])];
  const files = values.map((f): [string, string] => [posix.normalize(f.replace(/^\/+/, '')), '']);
  const inputs = { files, dirs: [], direct: true };
  return lackingInput(lacking, {
    root: chart.sourceRoot,
    path: naming.chartPath,
    whole: true,
    inputs,
  });
}

/** A kept outcome as a release's; only a release's own outcomes carry a chart. */
function releaseOutcome(kept: MemoOutcome): HelmBuildOutcome | undefined {
  if ('error' in kept) return kept;
  return kept.chart === undefined ? undefined : { ...kept, chart: kept.chart };
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

/** What `helm template` is asked, but the chart: the values, the release, every switch. */
function templateOptions(
  settings: RenderSettings,
  hr: HelmRelease,
  namespace: string,
  values: Record<string, unknown>,
) {
  const helm = settings.helm;
  return {
    releaseName: releaseName(hr),
    namespace,
    values,
    apiVersions: helm.apiVersions,
    ...(helm.kubeVersion !== undefined ? { kubeVersion: helm.kubeVersion } : {}),
    crds: chartCrdsMode(hr, helm.skipCrds),
    isUpgrade: helm.isUpgrade,
    ...actionFlags(hr, helm.isUpgrade),
    includeTests: hr.spec.test?.enable === true,
    timeoutMs: settings.toolTimeoutMs,
    maxOutputBytes: settings.maxOutputBytes,
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
