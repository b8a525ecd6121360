/**
 * HelmRelease inflation for the flux-local engine (settings.helm.enabled).
 *
 * Command: one `flux-local build hr NAME -n NAMESPACE --path ENTRY [--sources ...]
 * --no-skip-secrets --[no-]skip-crds --no-skip-invalid-helm-release-paths
 * [--kube-version=V] [--api-versions=A,B] --output-file FILE` per HelmRelease. (`build all
 * --enable-helm` inflates every release in one run, but it has no --sources, prints the
 * chart objects of all releases as one stream, and fails whole when one chart fails.)
 *
 * Attribution: by run. A run's output holds only the objects of the release it selects
 * (flux-local filters releases by exact name and namespace before inflating), so every
 * object belongs to that HelmRelease and one release's failure (a chart that cannot be
 * fetched, a template error) stays that release's error. flux-local adds no
 * helm.toolkit.fluxcd.io labels, and `app.kubernetes.io/instance` or release-name prefixes
 * are chart conventions that two releases of one chart share; its `build all` stream has
 * no boundary between releases. The cost: each run builds the Kustomizations again.
 *
 * The releases run are the HelmReleases in the `build ks` output, which are the ones
 * flux-local inflates (it reads releases only from Kustomization builds, never from files).
 *
 * Offline (settings.helm.offline): flux-local fetches charts itself through helm, with no
 * access to the chart cache, so a release whose chart is not a path in the repository
 * (a HelmRepository, OCIRepository or HelmChart chart) is reported as that release's
 * error without running flux-local. The runs that do happen get empty helm homes and an
 * unreachable HTTP(S) proxy, so no download can happen by accident.
 */
import { readFile, realpath } from 'node:fs/promises';
import { join, posix, resolve, sep } from 'node:path';
import { isHelmRelease, normalizeFluxPath, refOf } from '../flux/index.js';
import type { RenderSettings } from '../settings.js';
import { mapLimit } from '../workspace/index.js';
import { isolatedHelmHome, sourceHeaders } from '../helm/index.js';
import { chartFailureTags } from './chart-failure.js';
import {
  asRecord,
  stringOf,
  toRef,
  type Manifest,
  type Producer,
  type ProducerRef,
  type RenderedObject,
  type RenderError,
  type RenderErrorTags,
} from '../../model/index.js';
import { parseDocuments, parseFileDocuments } from '../../yaml/index.js';

export type RunOutcome = { ok: true; stdout: string } | { ok: false; message: string };

export interface ReleaseContext {
  settings: RenderSettings;
  /** The scratch repository flux-local runs in (its working directory). */
  repoRoot: string;
  /** Where output files and helm homes go. */
  scratch: string;
  entry: string;
  sourceArgs: readonly string[];
  run: (args: string[], env: Record<string, string>) => Promise<RunOutcome>;
  readOutput: (file: string) => Promise<{ text: string } | { error: string }>;
  /** Removes what flux-local's kustomize adds to objects (index annotations). */
  clean: (manifest: Manifest) => void;
}

export interface FoundRelease {
  ref: ProducerRef;
  manifest: Manifest;
  /** The Kustomization whose output holds the HelmRelease. */
  parent: ProducerRef;
}

export interface InflatedRelease {
  producer: Producer;
  objects: RenderedObject[];
  error?: RenderError;
}

/** Where offline runs send HTTP(S): the discard port on loopback, refused at once. */
const NO_PROXY_TARGET = 'http://127.0.0.1:9';
/** Kubernetes object names flux-local can be given as its positional NAME and -n value. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const LOCAL_SOURCE_KINDS = ['GitRepository', 'Bucket'];
const EXACT_VERSION = /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/;

/** The HelmReleases in `build ks` output, first occurrence of each, with their owner. */
export function releasesIn(objects: readonly RenderedObject[]): FoundRelease[] {
  const out = new Map<string, FoundRelease>();
  for (const o of objects) {
    if (!isHelmRelease(o.manifest) || o.producer.kind !== 'Kustomization') continue;
    const ref = refOf(o.manifest, o.producer.namespace);
    if (ref.name === '') continue;
    const key = `${ref.namespace}/${ref.name}`;
    if (!out.has(key)) out.set(key, { ref, manifest: o.manifest, parent: toRef(o.producer) });
  }
  return [...out.values()];
}

/**
 * Inflates every release, one flux-local run at a time, in the order given. The runs
 * share one copy of the repository, and `flux build ks` (which flux-local calls) writes
 * and restores generated kustomization files inside it, so concurrent runs race.
 */
export async function inflateReleases(
  ctx: ReleaseContext,
  releases: readonly FoundRelease[],
  onDone?: () => void,
): Promise<InflatedRelease[]> {
  return mapLimit(releases, 1, async (release, index) => {
    const inflated = await inflate(ctx, release, index);
    onDone?.();
    return inflated;
  });
}

/** A HelmRelease producer as the builtin engine describes it (definedIn: its Kustomization). */
export function describeRelease(
  ref: ProducerRef,
  manifest: Manifest | undefined,
  definedIn: Producer['definedIn'],
): Producer {
  const spec = asRecord(manifest?.['spec']);
  const dependsOn = Array.isArray(spec['dependsOn'])
    ? (spec['dependsOn'] as unknown[]).map(asRecord)
    : [];
  return {
    ...toRef(ref),
    path: normalizeFluxPath(chartOf(spec, ref.namespace).path),
    source: '',
    suspend: spec['suspend'] === true,
    prune: spec['prune'] === true,
    dependsOn: dependsOn
      .filter((d) => typeof d['name'] === 'string')
      .map((d) => ({
        kind: 'HelmRelease' as const,
        namespace: stringOf(d['namespace']) ?? ref.namespace,
        name: d['name'] as string,
      })),
    definedIn,
  };
}

async function inflate(
  ctx: ReleaseContext,
  release: FoundRelease,
  index: number,
): Promise<InflatedRelease> {
  const { ref } = release;
  const producer = describeRelease(ref, release.manifest, { parent: release.parent });
  const fail = (message: string, tags: RenderErrorTags = {}): InflatedRelease => {
    producer.error = message;
    return { producer, objects: [], error: { producer: toRef(ref), message, ...tags } };
  };
  const chart = chartOf(asRecord(release.manifest['spec']), ref.namespace);
  if (ctx.settings.helm.offline && !chart.local) {
    return fail(
      `chart unavailable: chart '${chart.path}' from ${chart.sourceId}: flux-local downloads ` +
        'remote charts itself, without the chart cache, and this render is offline',
      { code: 'chart-unavailable', offline: true },
    );
  }
  if (!OBJECT_NAME.test(ref.name) || !OBJECT_NAME.test(ref.namespace)) {
    return fail(`flux-local cannot select HelmRelease '${ref.namespace}/${ref.name}' by name`);
  }
  const outputFile = join(ctx.scratch, `release-${index}.yaml`);
  const run = await ctx.run(releaseArgs(ctx, ref, outputFile), await helmEnv(ctx, index));
  if (!run.ok) return fail(run.message, chartFailureTags(run.message, !chart.local));
  const output = await ctx.readOutput(outputFile);
  if ('error' in output) return fail(output.error);
  const parsed = parseDocuments(output.text);
  if (parsed.error !== undefined) {
    // The parser quotes the offending line, which may hold a rendered secret.
    return fail(`unreadable flux-local output: ${parsed.error.split('\n')[0] ?? ''}`);
  }
  const headers = sourceHeaders(output.text);
  const fileOf = templateFile(chart);
  let next = 0;
  let template: string | undefined;
  const objects: RenderedObject[] = [];
  for (const { manifest, line } of parsed.documents) {
    for (let h = headers[next]; h && h.line < line; h = headers[++next]) template = h.path;
    ctx.clean(manifest);
    const file = template === undefined ? undefined : fileOf(template);
    objects.push(
      file === undefined
        ? { producer: toRef(ref), manifest }
        : { producer: toRef(ref), file, manifest },
    );
  }
  producer.source = await chartSource(ctx.repoRoot, chart);
  return { producer, objects };
}

function releaseArgs(ctx: ReleaseContext, ref: ProducerRef, outputFile: string): string[] {
  const helm = ctx.settings.helm;
  const args = [
    'build',
    'hr',
    ref.name,
    `--namespace=${ref.namespace}`,
    '--path',
    ctx.entry,
    ...ctx.sourceArgs,
    '--no-skip-secrets',
    helm.skipCrds ? '--skip-crds' : '--no-skip-crds',
    // A missing chart folder is an error, as in Flux, not a release without objects.
    '--no-skip-invalid-helm-release-paths',
  ];
  if (helm.kubeVersion) args.push(`--kube-version=${helm.kubeVersion}`);
  if (helm.apiVersions.length > 0) args.push(`--api-versions=${helm.apiVersions.join(',')}`);
  args.push('--output-file', outputFile);
  return args;
}

/** Fresh helm homes per run; offline, also a proxy that refuses every connection. */
/** flux-local's helm gets homes of its own, with none of the user's registry logins. */
async function helmEnv(ctx: ReleaseContext, index: number): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    ...(await isolatedHelmHome(join(ctx.scratch, `helm-${index}`))),
  };
  if (ctx.settings.helm.offline) {
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
      env[name] = NO_PROXY_TARGET;
      env[name.toLowerCase()] = NO_PROXY_TARGET;
    }
    env['NO_PROXY'] = '';
    env['no_proxy'] = '';
  }
  return env;
}

interface ChartInfo {
  /** The producer path, as the builtin engine reports it: spec.chart.spec.chart or KIND/NAME. */
  path: string;
  /** KIND/NAMESPACE/NAME of the chart's source. */
  sourceId: string;
  /** A path in a GitRepository or Bucket: flux-local reads it from the repository. */
  local: boolean;
  /** spec.chart.spec.version. */
  version: string | undefined;
}

function chartOf(spec: Record<string, unknown>, namespace: string): ChartInfo {
  const chartSpec = asRecord(asRecord(spec['chart'])['spec']);
  const chart = stringOf(chartSpec['chart']);
  if (chart !== undefined) {
    const sourceRef = asRecord(chartSpec['sourceRef']);
    const kind = stringOf(sourceRef['kind']) ?? 'HelmRepository';
    return {
      path: chart,
      sourceId: `${kind}/${stringOf(sourceRef['namespace']) ?? namespace}/${stringOf(sourceRef['name']) ?? ''}`,
      local: LOCAL_SOURCE_KINDS.includes(kind),
      version: stringOf(chartSpec['version']),
    };
  }
  const chartRef = asRecord(spec['chartRef']);
  const name = stringOf(chartRef['name']);
  const kind = String(chartRef['kind']);
  return {
    path: name === undefined ? '' : `${kind}/${name}`,
    sourceId: `${kind}/${stringOf(chartRef['namespace']) ?? namespace}/${name ?? ''}`,
    local: false,
    version: undefined,
  };
}

/**
 * The source as the builtin engine reports it, SOURCE@VERSION: a local chart's version
 * from its Chart.yaml; a remote chart's only when spec.chart.spec.version is exact.
 */
async function chartSource(repoRoot: string, chart: ChartInfo): Promise<string> {
  if (!chart.local) {
    return chart.version && EXACT_VERSION.test(chart.version)
      ? `${chart.sourceId}@${chart.version}`
      : chart.sourceId;
  }
  try {
    const root = await realpath(repoRoot);
    const file = await realpath(resolve(root, chart.path, 'Chart.yaml'));
    if (!file.startsWith(root + sep)) return chart.sourceId;
    const meta = parseFileDocuments(await readFile(file, 'utf8')).documents[0]?.manifest;
    const version = meta?.['version'];
    return typeof version === 'string' || typeof version === 'number'
      ? `${chart.sourceId}@${String(version)}`
      : chart.sourceId;
  } catch {
    return chart.sourceId;
  }
}

/**
 * helm's `# Source: CHART/templates/x.yaml` as a file: a repository path for a local chart
 * (flux-local reads those from the repository), SOURCE:CHART/... for a remote one.
 */
function templateFile(chart: ChartInfo): (template: string) => string {
  if (!chart.local) return (template) => `${chart.sourceId}:${template}`;
  const dir = posix.normalize(chart.path.replace(/^\.?\/+/, '')).replace(/\/+$/, '');
  return (template) => {
    const inChart = template.slice(template.indexOf('/') + 1);
    return dir === '.' || dir === '' ? inChart : `${dir}/${inChart}`;
  };
}
