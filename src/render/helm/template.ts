/**
 * Runs `helm template` for one HelmRelease and keeps what helm-controller's install or
 * upgrade would put in the cluster: the charts' crds/ files apart (helm-controller
 * applies those itself), the templates, and the hooks that run on that action. Values
 * travel in a file, never on the command line. Where the render has a helm-server
 * (tools/helm-server), the same template is rendered there, without a helm process.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { folderDigest, renderCacheKey, type RenderCache } from '../cache/index.js';
import { basename, join, resolve } from 'node:path';
import { ToolError, type ToolRunner } from '../../tool-runner.js';
import type { ToolServer } from '../kustomize/index.js';
import { objectMeta, type Manifest } from '../../model/index.js';
import { parseDocuments } from '../../yaml/index.js';
import type { HelmRelease } from './helm-release.js';
import { FluxlensError } from '../../errors.js';

export interface TemplateOptions {
  chartDir: string;
  releaseName: string;
  namespace: string;
  /** User-supplied values; written to a file in the scratch folder and passed with -f. */
  values: Record<string, unknown>;
  kubeVersion?: string;
  apiVersions: readonly string[];
  /** Whether the charts' crds/ files are rendered; see `chartCrdsMode`. */
  crds: 'include' | 'skip';
  isUpgrade: boolean;
  disableHooks: boolean;
  disableOpenAPIValidation: boolean;
  /** install/upgrade.disableSchemaValidation: skip the chart's values.schema.json. */
  disableSchemaValidation?: boolean;
  /** spec.test.enable: helm-controller runs `helm test` after the action, creating test hooks. */
  includeTests?: boolean;
  showOnly?: readonly string[];
  timeoutMs: number;
  maxOutputBytes: number;
}

/** helm's own message for a failed render, with our scratch paths removed. Never values. */
export class TemplateError extends FluxlensError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid-content', message, options);
    this.name = 'TemplateError';
  }
}

/** helm's output split the way helm-controller treats it. */
export interface ChartRender {
  /**
   * Objects from the charts' crds/ folders. helm-controller applies these itself before
   * the helm action, outside the post-renderer chain (internal/action/crds.go).
   */
  crds: Manifest[];
  /** Rendered templates, then the hooks that run on this action, in helm's order. */
  objects: Manifest[];
}

const HOOK_ANNOTATION = 'helm.sh/hook';
const MAX_MESSAGE = 2000;

/**
 * The crds value for a HelmRelease. helm-controller applies crds/ on install with
 * install.crds and on upgrade with upgrade.crds, both defaulting to Create in its code
 * (crdPolicyOrDefault), whatever the API comment says about upgrade. CRDs created once
 * stay in the cluster, so they belong in the render unless both policies are Skip or
 * the user asks to leave them out.
 */
export function chartCrdsMode(hr: HelmRelease, userSkip: boolean): 'include' | 'skip' {
  if (userSkip) return 'skip';
  const install = hr.spec.install?.crds ?? (hr.spec.install?.skipCRDs ? 'Skip' : 'Create');
  const upgrade = hr.spec.upgrade?.crds ?? 'Create';
  return install === 'Skip' && upgrade === 'Skip' ? 'skip' : 'include';
}

/** The render cache as `helm template` uses it. */
export interface TemplateCache {
  store: RenderCache;
  /** `helm version`: another helm may render the same chart differently. */
  tool: string;
}

/**
 * `server`: the render's helm-server, which renders what `helm template` would print (and
 * runs the helm binary for what it cannot); absent, a helm process renders.
 */
export async function helmTemplate(
  runner: ToolRunner,
  opts: TemplateOptions,
  scratchDir: string,
  cache?: TemplateCache,
  server?: ToolServer,
): Promise<ChartRender> {
  const key = cache && templateKey(cache.tool, opts);
  const cached = key !== undefined ? await cache?.store.get(key) : undefined;
  if (cached !== undefined) return splitOutput(cached, opts);
  const stdout = await helmTemplateText(runner, opts, scratchDir, server);
  if (key !== undefined) await cache?.store.put(key, stdout);
  return splitOutput(stdout, opts);
}

/**
 * What `helm template` renders from: the chart's files, the values, every switch, and
 * helm's version; undefined for a chart too big to read for a key (it is rendered every
 * time). The chart's folder is a private copy, so its path is left out.
 */
function templateKey(tool: string, opts: TemplateOptions): string | undefined {
  const chart = folderDigest(opts.chartDir, KEY_LIMITS);
  if (chart === undefined) return undefined;
  const args = templateArgs({ ...opts, chartDir: '/chart' }, '/values.json');
  return renderCacheKey(['helm-template/1', tool, args, opts.values, chart]);
}

/** A chart too big to read for a key is rendered every time. */
const KEY_LIMITS = { maxFiles: 5000, maxBytes: 256 * 1024 * 1024 };

/** What `helm template` prints for `opts`, by helm or by `server`; its error as a TemplateError. */
export async function helmTemplateText(
  runner: ToolRunner,
  opts: TemplateOptions,
  scratchDir: string,
  server?: ToolServer,
): Promise<string> {
  await mkdir(scratchDir, { recursive: true });
  const work = await mkdtemp(join(scratchDir, 'helm-template-'));
  try {
    // JSON is YAML that helm reads back without YAML 1.1 surprises ('on', 'yes', 0777).
    const valuesFile = join(work, 'values.json');
    await writeFile(valuesFile, JSON.stringify(opts.values));
    const args = templateArgs(opts, valuesFile);
    const limits = { timeoutMs: opts.timeoutMs, maxOutputBytes: opts.maxOutputBytes };
    const binary = { cwd: work, env: helmHomes(work) };
    let stdout: string;
    try {
      stdout =
        server !== undefined && serverRenders(opts)
          ? await server.run({ request: serverRequest(opts, valuesFile), args, ...limits, binary })
          : (await runner.run('helm', args, { ...binary, ...limits })).stdout;
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      throw new TemplateError(helmMessage(err, work, opts.chartDir), { cause: err });
    }
    return stdout;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Flags use the `--flag=value` form and the positional arguments follow `--`, so no
 * name, namespace or version from a repository can be read as another flag.
 */
function templateArgs(opts: TemplateOptions, valuesFile: string): string[] {
  const args = ['template', `--namespace=${opts.namespace}`, `--values=${valuesFile}`];
  if (opts.kubeVersion) args.push(`--kube-version=${opts.kubeVersion}`);
  for (const version of opts.apiVersions) args.push(`--api-versions=${version}`);
  args.push(opts.crds === 'include' ? '--include-crds' : '--skip-crds');
  if (opts.isUpgrade) args.push('--is-upgrade');
  if (opts.disableHooks) args.push('--no-hooks');
  if (opts.disableOpenAPIValidation) args.push('--disable-openapi-validation');
  if (opts.disableSchemaValidation) args.push('--skip-schema-validation');
  for (const file of opts.showOnly ?? []) args.push(`--show-only=${file}`);
  args.push('--', opts.releaseName, resolve(opts.chartDir));
  return args;
}

/**
 * What helm-server renders exactly as the command line does. The rest goes to the binary:
 * `--show-only` (fluxlens never asks it), an empty namespace (helm takes the kubeconfig's),
 * and API versions that helm's flag parser would split (a comma or a quote in one).
 */
function serverRenders(opts: TemplateOptions): boolean {
  return (
    (opts.showOnly ?? []).length === 0 &&
    opts.namespace !== '' &&
    opts.apiVersions.every((version) => !/[,"]/.test(version))
  );
}

/** The request of tools/helm-server/main.go for the run templateArgs describes. */
function serverRequest(opts: TemplateOptions, valuesFile: string): Record<string, unknown> {
  return {
    chart: resolve(opts.chartDir),
    valuesFile: resolve(valuesFile),
    releaseName: opts.releaseName,
    namespace: opts.namespace,
    kubeVersion: opts.kubeVersion ?? '',
    apiVersions: opts.apiVersions,
    includeCrds: opts.crds === 'include',
    isUpgrade: opts.isUpgrade,
    noHooks: opts.disableHooks,
    disableOpenAPIValidation: opts.disableOpenAPIValidation,
    skipSchemaValidation: opts.disableSchemaValidation ?? false,
    maxOutputBytes: opts.maxOutputBytes,
  };
}

/** Keeps helm away from the user's repositories, registry logins and plugins. */
function helmHomes(work: string): Record<string, string> {
  return {
    HELM_CONFIG_HOME: join(work, 'config'),
    HELM_CACHE_HOME: join(work, 'cache'),
    HELM_DATA_HOME: join(work, 'data'),
  };
}

function helmMessage(err: ToolError, work: string, chartDir: string): string {
  const stderr = err.stderrTail;
  let message = err.message;
  if (stderr) {
    const last = stderr.lastIndexOf('Error: ');
    message = (last >= 0 ? stderr.slice(last + 'Error: '.length) : stderr)
      .replace(/\n+Use --debug flag to render out invalid YAML\s*$/, '')
      .trim();
  }
  const chart = resolve(chartDir);
  return message
    .split(`${work}/`)
    .join('')
    .split(work)
    .join('.')
    .split(chart)
    .join(basename(chart))
    .slice(0, MAX_MESSAGE);
}

/**
 * Splits helm's stream into objects. helm heads every template with `# Source: PATH`;
 * a crds/ file is printed whole under one header, so a document takes the path of the
 * last header before it.
 */
function splitOutput(stdout: string, opts: TemplateOptions): ChartRender {
  const parsed = parseDocuments(stdout);
  if (parsed.error) {
    // The parser quotes the offending line, which may hold a rendered secret.
    const firstLine = parsed.error.split('\n')[0] ?? '';
    throw new TemplateError(`helm output is not valid YAML: ${firstLine}`);
  }
  const headers = sourceHeaders(stdout);
  const render: ChartRender = { crds: [], objects: [] };
  let next = 0;
  let source: string | undefined;
  for (const { manifest, line } of parsed.documents) {
    for (let h = headers[next]; h && h.line < line; h = headers[++next]) source = h.path;
    if (source !== undefined) markTemplateSource(manifest, source);
    if (source !== undefined && isCrdsFile(source)) render.crds.push(manifest);
    else if (installedOnAction(manifest, opts)) render.objects.push(manifest);
  }
  return render;
}

/** helm heads every template's documents with `# Source: PATH`: each header's 1-based line and path. */
export function sourceHeaders(text: string): { line: number; path: string }[] {
  const out: { line: number; path: string }[] = [];
  text.split('\n').forEach((content, index) => {
    const match = /^# Source: (.+?)\s*$/.exec(content);
    if (match?.[1]) out.push({ line: index + 1, path: match[1] });
  });
  return out;
}

/**
 * Carries helm's `# Source:` path through the post-renderers on the object itself;
 * `takeTemplateSource` reads it back and removes it, so it never reaches the output.
 */
export const TEMPLATE_SOURCE_ANNOTATION = 'render.fluxlens.dev/template-source';

function markTemplateSource(manifest: Manifest, source: string): void {
  const metadata = (manifest['metadata'] ??= {}) as Record<string, unknown>;
  const annotations = (metadata['annotations'] ??= {}) as Record<string, unknown>;
  annotations[TEMPLATE_SOURCE_ANNOTATION] = source;
}

/** The chart-relative template path of a rendered object (`CHART/templates/x.yaml`), removed from it. */
export function takeTemplateSource(manifest: Manifest): string | undefined {
  const metadata = manifest['metadata'] as Record<string, unknown> | undefined;
  const annotations = metadata?.['annotations'] as Record<string, unknown> | undefined;
  const source = annotations?.[TEMPLATE_SOURCE_ANNOTATION];
  if (!annotations || typeof source !== 'string') return undefined;
  delete annotations[TEMPLATE_SOURCE_ANNOTATION];
  if (Object.keys(annotations).length === 0 && metadata) delete metadata['annotations'];
  return source;
}

/** `CHART/crds/...`, or the same inside a subchart: `CHART/charts/SUB/crds/...`. */
function isCrdsFile(path: string): boolean {
  return /^[^/]+(?:\/charts\/[^/]+)*\/crds\//.test(path);
}

/**
 * Templates always; a hook only when it runs on this action: helm runs pre/post-install
 * hooks on install, pre/post-upgrade hooks on upgrade, and test hooks only under
 * `helm test`, which helm-controller runs when spec.test.enable is set. helm reads the
 * annotation as a comma list, trimmed and lower-cased, with 'test-success' meaning
 * 'test' (helm releaseutil/manifest_sorter.go).
 */
function installedOnAction(manifest: Manifest, opts: TemplateOptions): boolean {
  const hook = objectMeta(manifest).annotations[HOOK_ANNOTATION];
  if (hook === undefined) return true;
  const wanted = opts.isUpgrade ? ['pre-upgrade', 'post-upgrade'] : ['pre-install', 'post-install'];
  if (opts.includeTests) wanted.push('test');
  return hook
    .split(',')
    .map((event) => event.trim().toLowerCase())
    .map((event) => (event === 'test-success' ? 'test' : event))
    .some((event) => wanted.includes(event));
}
