/**
 * The flux-local engine: renders the cluster with the flux-local CLI (pinned 7.11.0) and
 * maps its output to the same model as the builtin engine. flux-local itself renders each
 * Kustomization with `flux build ks --dry-run`, so the object bodies are the flux CLI's;
 * what flux-local decides is which Kustomizations exist, with which spec, and the values
 * they substitute.
 *
 * Commands (run in a scratch copy of the repository, never in the user's folder):
 *   flux-local get ks -A --path ENTRY [--sources ...]
 *       the Kustomizations flux-local selects (a NAMESPACE/NAME/PATH table; `get ks` has
 *       no YAML output, and `get cluster -o yaml` also parses every HelmRelease, so it
 *       fails on HelmReleases that `build ks` does not care about)
 *   flux-local build ks -A --path ENTRY --no-skip-secrets --no-skip-crds [--sources ...]
 *       --output-file FILE
 *       the objects, attributed by their kustomize.toolkit.fluxcd.io/name|namespace labels
 *       (flux-local drops Secrets and CRDs unless told otherwise)
 *   flux-local build hr NAME -n NAMESPACE ... (settings.helm.enabled; see flux-local-helm.ts)
 *       one run per HelmRelease in the `build ks` output, its output attributed to that
 *       HelmRelease; `--enable-helm` exists only on `build all`, which has no --sources and
 *       prints every release's chart objects as one stream
 * flux-local calls `git rev-parse --show-toplevel` and nothing else from git for these
 * commands, so the scratch copy only needs `git init` (no commit). `--sources` takes
 * `[NAMESPACE/]NAME[=DIR]`; DIR may be absolute, so each `--source NAME=DIR` is copied
 * into the workspace and passed by absolute path.
 *
 * Known deviations from Flux that this engine inherits (observed with flux-local 7.11.0
 * and flux 2.9.5; the integration test pins those marked [tested]):
 * - [tested] Values that postBuild.substituteFrom reads from a Secret become
 *   `..PLACEHOLDER_KEY..` (flux-local wipes Secret data before substituting). Operators then
 *   work on the placeholder: `${SECRET_DOMAIN/./-}` renders `-.PLACEHOLDER_SECRET_DOMAIN..`,
 *   so objects named from Secret values get other names than in Flux.
 * - [tested] substituteFrom wins over inline postBuild.substitute (Flux: inline wins).
 * - [tested] A Kustomization defined in a file under --path is taken from that raw file,
 *   not from its parent's rendered output: patches, namespace or substitutions the parent
 *   applies to it are ignored (its spec.path, postBuild, ... are the file's). Only
 *   Kustomizations whose files lie outside --path come from the parent's output. This
 *   engine reports the file-taken ones as definedIn their file.
 * - [tested] A Kustomization file under --path without metadata.namespace (one that a
 *   parent's kustomization.yaml puts in a namespace) fails the whole run.
 * - [tested] One broken Kustomization (missing path, kustomize error, duplicate name) fails
 *   the whole run: this engine then reports an error on each producer flux-local names (or
 *   on the synthetic producer FLUX_LOCAL_RUN) and marks every other producer skipped.
 *   (--skip-invalid-kustomization-paths is not used: with a dependsOn on the skipped
 *   Kustomization it fails with "Internal error: Unexpected loop without build tasks".)
 * - Unset substitution variables become empty (flux build's non-strict default; a quoted
 *   "${x}" becomes null), where the builtin engine with strictSubstitution (Flux 2.9's
 *   default, see RenderSettings) fails the Kustomization.
 * - A Kustomization without spec.path renders --path, not the source root (from
 *   flux-local's code).
 * - Every GitRepository sourceRef is read from the reviewed repository (Flux would fetch
 *   that repository); OCIRepository sourceRefs without a --source mapping are dropped
 *   ([tested]; reported here as skipped producers); other source kinds (Bucket,
 *   ExternalArtifact) are read from the repository root. `.sourceignore` and spec.ignore
 *   are not applied.
 * - Same as Flux: commonMetadata, targetNamespace and owner labels (applied by `flux
 *   build`). Objects carry no source file: flux build drops kustomize's origin annotation.
 * - The whole render is one flux-local run per command, limited by
 *   RenderSettings.toolTimeoutMs; flux-local runs its own `flux build` calls 20 at a time,
 *   each limited to 60 s. Error messages are the last 2000 characters of its stderr.
 *
 * HelmRelease deviations (settings.helm.enabled; flux-local `helm template`s each release
 * itself, see flux_local/helm.py and values.py; compared with helm-controller as the
 * builtin engine renders it):
 * - [tested] The release name is metadata.name: spec.releaseName and the
 *   `<targetNamespace>-` prefix Flux gives a release without one are ignored, so objects
 *   named from .Release.Name get other names. The release namespace is Flux's
 *   (targetNamespace, else the HelmRelease's namespace).
 * - [tested] No helm.toolkit.fluxcd.io/name|namespace labels, no spec.postRenderers, no
 *   spec.commonMetadata: chart objects are helm's output as is.
 * - [tested] Namespaced chart objects without a namespace keep none (helm-controller's
 *   kube client puts them in the release namespace).
 * - [tested] CRDs in a chart's crds/ folder are never rendered (`helm template` without
 *   --include-crds; --no-skip-crds keeps only CRDs under templates/). With
 *   settings.helm.skipCrds flux-local also drops the CRDs under templates/ (from code).
 * - [tested] Every hook but test hooks is rendered (`helm template --skip-tests`): upgrade,
 *   delete and rollback hooks too, where Flux creates only the action's hooks.
 *   install.disableHooks and spec.test.enable are ignored (from code).
 * - [tested] settings.helm.isUpgrade is ignored: 7.11.0 has no --is-upgrade, so releases
 *   render as installs. kubeVersion and apiVersions are passed (--kube-version,
 *   --api-versions) and behave as in the builtin engine.
 * - [tested] valuesFrom Secrets are never read (its `build hr` leaves Secrets out of the
 *   Kustomization builds it reads values from): at a targetPath the value becomes
 *   `..PLACEHOLDER_<Secret name>..`; a whole-file Secret reference is dropped (from code).
 * - [tested] A targetPath value is set as the plain string, not typed as `--set` does
 *   (Flux: "3" is the number 3, `[0]` indexes a list, `literal` escapes).
 * - [tested] spec.chart.spec.valuesFiles is ignored: the chart's values.yaml stays.
 * - valuesFrom is read only from the output of the HelmRelease's own Kustomization. A
 *   reference not found there is dropped, or at a targetPath becomes
 *   `..PLACEHOLDER_<name>..`, also when not optional; a missing key is dropped (Flux fails
 *   the release for both). spec.values always wins over a targetPath (from code).
 * - A chart from a GitRepository is read at its path in the reviewed repository, whatever
 *   the GitRepository (as for Kustomizations); Bucket sources and HelmChart and
 *   ExternalArtifact chartRefs are errors. HelmRepository and OCIRepository charts
 *   are downloaded by flux-local's helm, without the chart cache and whatever --source
 *   maps the OCIRepository to. [tested] Offline, those are errors of their HelmRelease
 *   (the builtin engine renders them from the cache or the mapped folder).
 * - `*List` objects from a chart are not unpacked into their items (from code).
 * - [tested] Only HelmReleases that a built Kustomization applies are inflated; ones
 *   written under the entry outside any Kustomization are reported skipped.
 * - Every HelmRelease run builds all Kustomizations again (N+2 flux-local runs,
 *   settings.concurrency at a time). A HelmRelease that flux-local cannot parse (no
 *   metadata.namespace, no chart) fails every HelmRelease's run (from code). Errors carry no file;
 *   chart objects carry the chart template (helm's `# Source:`) as their file.
 */
import { mkdtemp, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FluxlensError, UsageError, errorMessage } from '../errors.js';
import { ToolError } from '../run-tool.js';
import { discover, type FoundObject } from './discover.js';
import type { EngineDeps, RenderEngine, RenderProgress, RenderRequest } from './engine.js';
import {
  describeRelease,
  inflateReleases,
  releasesIn,
  type InflatedRelease,
  type RunOutcome,
} from './flux-local-helm.js';
import { materializeRepository } from './materialize.js';
import {
  objectMeta,
  producerKey,
  type Manifest,
  type Producer,
  type ProducerRef,
  type RenderedCluster,
  type RenderedObject,
  type RenderError,
} from './model.js';
import { SourceIgnore } from './source-ignore.js';
import { normalizeFluxPath, type SourceMapping } from './sources.js';
import { copyTree, isDirectory } from './tree.js';
import { parseDocuments } from './yaml.js';

const OWNER_NAME_LABEL = 'kustomize.toolkit.fluxcd.io/name';
const OWNER_NAMESPACE_LABEL = 'kustomize.toolkit.fluxcd.io/namespace';
/** Annotations kustomize's kio adds when flux-local pipes output through `kustomize cfg grep`. */
export const FLUX_LOCAL_STRIPPED_ANNOTATIONS = [
  'config.kubernetes.io/index',
  'internal.config.kubernetes.io/index',
] as const;
/** Where errors go that flux-local does not tie to one Kustomization. */
export const FLUX_LOCAL_RUN: ProducerRef = {
  kind: 'Kustomization',
  namespace: '',
  name: 'flux-local',
};
const RUN_KEY = producerKey(FLUX_LOCAL_RUN);
const DEFAULT_NAMESPACE = 'default';
const MAX_SCAN_BYTES = 4 * 1024 * 1024;

interface ListedKustomization {
  namespace: string;
  name: string;
  /** flux-local's path: repository-relative, or absolute inside a mapped source copy. */
  path: string;
}

interface MappedSource {
  key: string;
  /** Absolute folder handed to flux-local, or undefined when it is the repository itself. */
  root: string | undefined;
}

interface Workspace {
  dir: string;
  repoRoot: string;
  files: Map<string, FoundObject>;
  /** HelmReleases written under the entry, by producer key; empty unless helm is enabled. */
  releaseFiles: Map<string, FoundObject>;
  mapped: MappedSource[];
}

export class FluxLocalEngine implements RenderEngine {
  readonly name = 'flux-local' as const;

  constructor(private readonly deps: EngineDeps) {}

  async render(
    request: RenderRequest,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    // A SetupError when flux-local is not installed; everything after is the repository's.
    await this.deps.runner.resolve('flux-local');
    const dir = await mkdtemp(join(tmpdir(), 'fluxlens-fl-'));
    try {
      const repoRoot = await this.materialize(request, dir);
      const entry = await checkEntry(repoRoot, request.entry);
      const found = await discover(repoRoot, entry, await SourceIgnore.load(repoRoot));
      if (found.kustomizations.length === 0 && found.helmReleases.length === 0) {
        throw new FluxlensError(
          'no-flux-objects',
          `no Flux Kustomization or HelmRelease found under '${entry}'`,
        );
      }
      const files = new Map<string, FoundObject>();
      for (const item of found.kustomizations) {
        const key = producerKey(refOf(item.manifest, DEFAULT_NAMESPACE));
        if (!files.has(key)) files.set(key, item);
      }
      const releaseFiles = new Map<string, FoundObject>();
      for (const item of this.deps.settings.helm.enabled ? found.helmReleases : []) {
        const key = producerKey(releaseRefOf(item.manifest));
        if (!releaseFiles.has(key)) releaseFiles.set(key, item);
      }
      const mapped = await this.mapSources(request.sources, request.repoDir, dir);
      const ws: Workspace = { dir, repoRoot, files, releaseFiles, mapped };
      const sourceArgs = await this.sourcesArgs(ws);
      const tools = await this.toolVersions();

      const listing = await this.run(ws, ['get', 'ks', '-A', '--path', entry, ...sourceArgs]);
      if (!listing.ok) return failedRun(ws, [], listing.message, tools);
      const listed = parseKustomizationTable(listing.stdout);
      onProgress?.({ done: 0, total: listed.length });
      if (listed.length === 0) return withReleases(ws, this.assemble(ws, listed, [], tools), []);

      // --output-file: flux-local opens /dev/stdout by name, which fails when stdout is a socket.
      const outputFile = join(dir, 'build.yaml');
      const build = await this.run(ws, [
        'build',
        'ks',
        '-A',
        '--path',
        entry,
        '--no-skip-secrets',
        '--no-skip-crds',
        ...sourceArgs,
        '--output-file',
        outputFile,
      ]);
      if (!build.ok) return failedRun(ws, listed, build.message, tools);
      const output = await this.readOutput(outputFile);
      if ('error' in output) return failedRun(ws, listed, output.error, tools);
      const parsed = parseDocuments(output.text);
      if (parsed.error !== undefined) {
        return failedRun(ws, listed, `unreadable flux-local output: ${parsed.error}`, tools);
      }
      const cluster = this.assemble(
        ws,
        listed,
        parsed.documents.map((d) => d.manifest),
        tools,
      );
      if (!this.deps.settings.helm.enabled) {
        onProgress?.({ done: listed.length, total: listed.length });
        return cluster;
      }
      const releases = releasesIn(cluster.objects);
      const total = listed.length + releases.length;
      let done = listed.length;
      onProgress?.({ done, total });
      const inflated = await inflateReleases(
        {
          settings: this.deps.settings,
          repoRoot: ws.repoRoot,
          scratch: dir,
          entry,
          sourceArgs,
          run: (args, env) => this.run(ws, args, env),
          readOutput: (file) => this.readOutput(file),
          clean: stripIndexAnnotations,
        },
        releases,
        () => onProgress?.({ done: ++done, total }),
      );
      return withReleases(ws, cluster, inflated);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The repository as Flux would see it, in `workspace/repository`, made a git work tree. */
  private async materialize(request: RenderRequest, workspace: string): Promise<string> {
    const dest = await materializeRepository(this.deps.runner, request, workspace, {
      maxFiles: this.deps.settings.maxSourceFiles,
    });
    // Neither copy carries .git; flux-local finds its root with `git rev-parse --show-toplevel`.
    await this.deps.runner.run('git', ['-C', dest, 'init', '--quiet'], {
      env: { GIT_CONFIG_NOSYSTEM: '1' },
    });
    return realpath(dest);
  }

  /** Copies each `--source NAME=DIR` folder into the workspace, as the builtin engine does. */
  private async mapSources(
    mappings: readonly SourceMapping[],
    repoDir: string,
    workspace: string,
  ): Promise<MappedSource[]> {
    const repoReal = await realpath(resolve(repoDir));
    const out: MappedSource[] = [];
    for (const [i, m] of mappings.entries()) {
      const parts = m.key.split('/');
      // flux-local takes NAME or NAMESPACE/NAME; KIND/NAMESPACE/NAME loses its kind.
      const key = parts.length === 3 ? `${parts[1]}/${parts[2]}` : m.key;
      if (parts.length > 3 || parts.some((p) => p === '') || /[,=\s]/.test(key)) {
        throw new UsageError(`source mapping '${m.key}' cannot be passed to flux-local`);
      }
      const dir = resolve(m.dir);
      if (!(await isDirectory(dir)))
        throw new UsageError(`source '${m.key}': '${m.dir}' is not a folder`);
      if ((await realpath(dir)) === repoReal) {
        out.push({ key, root: undefined });
        continue;
      }
      const root = join(workspace, `source-${i}`);
      await copyTree(dir, root, {
        mode: 'copy',
        limits: { maxFiles: this.deps.settings.maxSourceFiles },
      });
      const real = await realpath(root);
      if (/[,=]/.test(real))
        throw new UsageError(`temporary folder '${real}' cannot be passed to flux-local`);
      out.push({ key, root: real });
    }
    return out;
  }

  /**
   * Once --sources is given, flux-local keeps only Kustomizations whose source is listed,
   * so every GitRepository the repository's Kustomizations name is listed too (without a
   * folder: flux-local then reads it from the repository, as it does without --sources).
   */
  private async sourcesArgs(ws: Workspace): Promise<string[]> {
    if (ws.mapped.length === 0) return [];
    const items = ws.mapped.map((m) => `${m.key}=${m.root ?? '.'}`);
    const mappedNames = new Set(ws.mapped.map((m) => m.key.split('/').pop()));
    const gitNames = new Set<string>();
    for (const manifest of await kustomizationsIn(ws.repoRoot, this.deps.settings.maxSourceFiles)) {
      const ref = sourceRefOf(manifest);
      if (
        ref &&
        ref.kind === 'GitRepository' &&
        !mappedNames.has(ref.name) &&
        !/[,=/\s]/.test(ref.name)
      ) {
        gitNames.add(ref.name);
      }
    }
    return ['--sources', [...items, ...[...gitNames].sort()].join(',')];
  }

  private async run(
    ws: Workspace,
    args: string[],
    env: Record<string, string> = {},
  ): Promise<RunOutcome> {
    try {
      const { stdout } = await this.deps.runner.run('flux-local', args, {
        cwd: ws.repoRoot,
        timeoutMs: this.deps.settings.toolTimeoutMs,
        maxOutputBytes: this.deps.settings.maxOutputBytes,
        env,
      });
      return { ok: true, stdout };
    } catch (err) {
      const raw =
        err instanceof ToolError && err.exitCode !== undefined && err.stderrTail
          ? err.stderrTail
          : errorMessage(err);
      return { ok: false, message: cleanMessage(raw, ws) };
    }
  }

  private async readOutput(file: string): Promise<{ text: string } | { error: string }> {
    const size = (await stat(file).catch(() => undefined))?.size;
    if (size === undefined) return { error: 'flux-local wrote no output file' };
    if (size > this.deps.settings.maxOutputBytes)
      return { error: 'flux-local output exceeded the size cap' };
    return { text: await readFile(file, 'utf8') };
  }

  private assemble(
    ws: Workspace,
    listed: readonly ListedKustomization[],
    manifests: readonly Manifest[],
    tools: Record<string, string>,
  ): RenderedCluster {
    const rendered = new Map<string, { manifest: Manifest; parent: ProducerRef }>();
    const objects: RenderedObject[] = [];
    let unowned = 0;
    for (const manifest of manifests) {
      stripIndexAnnotations(manifest);
      const meta = objectMeta(manifest);
      const name = meta.labels[OWNER_NAME_LABEL];
      const namespace = meta.labels[OWNER_NAMESPACE_LABEL];
      const owned = name !== undefined && namespace !== undefined;
      const owner: ProducerRef = owned
        ? { kind: 'Kustomization', namespace, name }
        : { ...FLUX_LOCAL_RUN };
      if (!owned) unowned++;
      objects.push({ producer: owner, manifest });
      if (isKustomization(manifest) && meta.name !== '') {
        const key = producerKey(refOf(manifest, owner.namespace));
        if (!rendered.has(key)) rendered.set(key, { manifest, parent: owner });
      }
    }

    const producers = new Map<string, Producer>();
    for (const ks of listed) {
      const ref: ProducerRef = { kind: 'Kustomization', namespace: ks.namespace, name: ks.name };
      producers.set(producerKey(ref), describe(ws, ref, rendered, ks.path));
    }
    // Owners flux-local did not list (it lists what it builds, so this is defensive).
    for (const o of objects) {
      const key = producerKey(o.producer);
      if (key !== RUN_KEY && !producers.has(key))
        producers.set(key, describe(ws, o.producer, rendered));
    }
    // Kustomizations written under the entry that flux-local did not select.
    for (const [key, item] of ws.files) {
      if (producers.has(key)) continue;
      const producer = describe(ws, refOf(item.manifest, DEFAULT_NAMESPACE), rendered);
      producer.skipped = notSelectedReason(producer.source);
      producers.set(key, producer);
    }

    const errors: RenderError[] = [];
    if (unowned > 0) {
      errors.push({
        producer: { ...FLUX_LOCAL_RUN },
        message: `flux-local output has ${unowned} object(s) without the ${OWNER_NAME_LABEL} and ${OWNER_NAMESPACE_LABEL} labels`,
      });
    }
    return { producers: sortProducers(producers), objects, errors, tools };
  }

  private async toolVersions(): Promise<Record<string, string>> {
    const tools: Record<string, string> = {
      'flux-local': await fluxLocalVersion(await this.deps.runner.resolve('flux-local')),
    };
    try {
      const { stdout } = await this.deps.runner.run('flux', ['version', '--client'], {
        timeoutMs: 30_000,
      });
      const version = /v?\d+\.\d+\.\d+\S*/.exec(stdout)?.[0];
      if (version) tools['flux'] = version;
    } catch {
      // flux-local reports a missing flux CLI itself, per run
    }
    if (this.deps.settings.helm.enabled) {
      try {
        const { stdout } = await this.deps.runner.run('helm', ['version', '--short'], {
          timeoutMs: 30_000,
        });
        tools['helm'] = stdout.trim();
      } catch {
        // flux-local reports a missing helm CLI itself, per HelmRelease
      }
    }
    return tools;
  }
}

/** Every Flux Kustomization written in the tree's YAML files (a quick text filter first). */
async function kustomizationsIn(root: string, maxFiles: number): Promise<Manifest[]> {
  const out: Manifest[] = [];
  let files = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory() && e.name !== '.git') await walk(path);
      else if (e.isFile() && /\.ya?ml$/.test(e.name) && ++files <= maxFiles) {
        if ((await stat(path)).size > MAX_SCAN_BYTES) continue;
        const text = await readFile(path, 'utf8');
        if (!text.includes('kustomize.toolkit.fluxcd.io')) continue;
        for (const { manifest } of parseDocuments(text).documents)
          if (isKustomization(manifest)) out.push(manifest);
      }
    }
  };
  await walk(root);
  return out;
}

async function checkEntry(repoRoot: string, entry: string): Promise<string> {
  const target = resolve(repoRoot, entry);
  const rel = relative(repoRoot, target);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new UsageError(`entry path '${entry}' leaves the repository`);
  if (!(await isDirectory(target))) throw new UsageError(`entry path '${entry}' is not a folder`);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/** flux-local has no --version: read it from the package metadata next to its interpreter. */
export async function fluxLocalVersion(executable: string): Promise<string> {
  try {
    const script = await realpath(executable);
    const shebang = (await readFile(script, 'utf8')).split('\n', 1)[0] ?? '';
    const interpreter = /^#!\s*(\S+)/.exec(shebang)?.[1];
    const prefixes = [
      interpreter ? dirname(dirname(interpreter)) : undefined,
      dirname(dirname(script)),
    ];
    for (const prefix of prefixes) {
      if (prefix === undefined) continue;
      const lib = join(prefix, 'lib');
      for (const py of await readdir(lib).catch(() => [] as string[])) {
        const site = join(lib, py, 'site-packages');
        for (const entry of await readdir(site).catch(() => [] as string[])) {
          if (!/^flux_local-.*\.dist-info$/.test(entry)) continue;
          const metadata = await readFile(join(site, entry, 'METADATA'), 'utf8').catch(() => '');
          const version = /^Version:\s*(\S+)/m.exec(metadata)?.[1];
          if (version) return version;
        }
      }
    }
  } catch {
    // fall through
  }
  return 'unknown';
}

/** Parses `get ks -A` output: a table whose columns are padded to a common width. */
export function parseKustomizationTable(stdout: string): ListedKustomization[] {
  const lines = stdout.split('\n');
  const headerAt = lines.findIndex((l) => /^(CLUSTER\s+)?NAMESPACE\s+NAME\s+PATH\b/.test(l));
  if (headerAt < 0) return [];
  const header = lines[headerAt]!;
  const columns = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], start: m.index }));
  const out: ListedKustomization[] = [];
  for (const line of lines.slice(headerAt + 1)) {
    if (line.trim() === '') continue;
    const cell = (name: string): string => {
      const i = columns.findIndex((c) => c.name === name);
      const start = columns[i]!.start;
      const end = i + 1 < columns.length ? columns[i + 1]!.start : line.length;
      return i + 1 < columns.length ? line.slice(start, end).trim() : line.slice(start).trimEnd();
    };
    const namespace = cell('NAMESPACE');
    const name = cell('NAME');
    if (namespace && name) out.push({ namespace, name, path: cell('PATH') });
  }
  return out;
}

/**
 * The Producers to report when flux-local failed: an error on each Kustomization its
 * message names (or on FLUX_LOCAL_RUN), every other one skipped.
 */
function failedRun(
  ws: Workspace,
  listed: readonly ListedKustomization[],
  message: string,
  tools: Record<string, string>,
): RenderedCluster {
  const named = namedKustomizations(message);
  const producers = new Map<string, Producer>();
  for (const ks of listed) {
    const ref: ProducerRef = { kind: 'Kustomization', namespace: ks.namespace, name: ks.name };
    producers.set(producerKey(ref), describe(ws, ref, new Map(), ks.path));
  }
  for (const [key, item] of ws.files) {
    if (!producers.has(key))
      producers.set(key, describe(ws, refOf(item.manifest, DEFAULT_NAMESPACE), new Map()));
  }
  for (const ref of named) {
    const key = producerKey(ref);
    if (!producers.has(key)) producers.set(key, describe(ws, ref, new Map()));
  }
  for (const [key, item] of ws.releaseFiles) {
    const ref = releaseRefOf(item.manifest);
    producers.set(key, describeRelease(ref, item.manifest, { file: item.file, line: item.line }));
  }
  const culprit =
    named.length > 0 ? named.map((r) => `${r.namespace}/${r.name}`).join(', ') : undefined;
  const errors: RenderError[] = [];
  for (const producer of producers.values()) {
    if (named.some((r) => producerKey(r) === producerKey(producer))) {
      producer.error = message;
      errors.push(withFile({ producer: refOnly(producer), message }, producer));
    } else {
      producer.skipped = culprit
        ? `not rendered: flux-local stops the whole run at the error in Kustomization ${culprit}`
        : 'not rendered: flux-local failed (see the error on flux-local)';
    }
  }
  if (named.length === 0) errors.push({ producer: { ...FLUX_LOCAL_RUN }, message });
  return { producers: sortProducers(producers), objects: [], errors, tools };
}

/**
 * Adds the inflated HelmReleases: their producers, chart objects and errors; and, as
 * skipped, the HelmReleases written under the entry that no built Kustomization applies
 * (flux-local inflates only those).
 */
function withReleases(
  ws: Workspace,
  cluster: RenderedCluster,
  inflated: readonly InflatedRelease[],
): RenderedCluster {
  const producers = new Map(cluster.producers.map((p) => [producerKey(p), p]));
  const objects = [...cluster.objects];
  const errors = [...cluster.errors];
  for (const release of inflated) {
    producers.set(producerKey(release.producer), release.producer);
    objects.push(...release.objects);
    if (release.error) errors.push(release.error);
  }
  const names = new Set(inflated.map((r) => r.producer.name));
  for (const [key, item] of ws.releaseFiles) {
    const ref = releaseRefOf(item.manifest);
    // A parent may have moved it to another namespace: then it did render, under that key.
    if (producers.has(key) || names.has(ref.name)) continue;
    const producer = describeRelease(ref, item.manifest, { file: item.file, line: item.line });
    producer.skipped =
      'flux-local inflates only HelmReleases that a Kustomization it builds applies';
    producers.set(key, producer);
  }
  return { ...cluster, producers: sortProducers(producers), objects, errors };
}

/** The Kustomizations a flux-local error message blames, in order of appearance. */
export function namedKustomizations(message: string): ProducerRef[] {
  const found: { at: number; ref: ProducerRef }[] = [];
  const add = (at: number, namespace: string, name: string): void => {
    found.push({ at, ref: { kind: 'Kustomization', namespace, name } });
  };
  for (const m of message.matchAll(/(?:Kustomization|Fluxtomization) '([^'/\s]+)\/([^'\s]+)'/g))
    add(m.index, m[1]!, m[2]!);
  for (const m of message.matchAll(/flux build ks ([^\s']+)[^\n']*?--namespace ([^\s']+)/g))
    add(m.index, m[2]!, m[1]!);
  for (const m of message.matchAll(/multiple Fluxtomizations with the same name: \[([^\]]*)\]/g)) {
    for (const item of m[1]!.matchAll(/'([^'/\s]+)\/([^'\s]+)'/g)) add(m.index, item[1]!, item[2]!);
  }
  found.sort((a, b) => a.at - b.at);
  const out: ProducerRef[] = [];
  for (const { ref } of found)
    if (!out.some((r) => producerKey(r) === producerKey(ref))) out.push(ref);
  return out;
}

/** flux-local's last error line(s), with scratch paths made repository-relative. */
function cleanMessage(raw: string, ws: Workspace): string {
  let text = raw;
  const at = text.lastIndexOf('flux-local error:');
  if (at >= 0) text = text.slice(at + 'flux-local error:'.length);
  // A mapped source's copy becomes `KEY:path`, the scratch repository the repository root.
  const prefixes: [string, string][] = [
    ...ws.mapped.flatMap((m): [string, string][] =>
      m.root === undefined ? [] : [[m.root, `${m.key}:`]],
    ),
    [ws.repoRoot, ''],
    [ws.dir, ''],
  ];
  for (const [from, to] of prefixes) {
    text = text
      .split(`${from}/`)
      .join(to)
      .split(from)
      .join(to === '' ? '.' : `${to}.`);
  }
  return `flux-local: ${text.trim()}`;
}

function describe(
  ws: Workspace,
  ref: ProducerRef,
  rendered: ReadonlyMap<string, { manifest: Manifest; parent: ProducerRef }>,
  listedPath?: string,
): Producer {
  const key = producerKey(ref);
  const file = ws.files.get(key);
  const fromParent = rendered.get(key);
  // flux-local reads Kustomizations under --path from their files first.
  const manifest = file?.manifest ?? fromParent?.manifest;
  const spec = asRecord(manifest?.['spec']);
  const sourceRef = manifest ? sourceRefOf(manifest) : undefined;
  const dependsOn = Array.isArray(spec['dependsOn'])
    ? (spec['dependsOn'] as unknown[]).map(asRecord)
    : [];
  const producer: Producer = {
    ...refOnly(ref),
    path:
      listedPath !== undefined ? sourcePath(ws, listedPath) : normalizeFluxPath(str(spec['path'])),
    source: sourceRef
      ? `${sourceRef.kind}/${sourceRef.namespace ?? ref.namespace}/${sourceRef.name}`
      : '',
    suspend: spec['suspend'] === true,
    prune: spec['prune'] === true,
    dependsOn: dependsOn
      .filter((d) => typeof d['name'] === 'string')
      .map((d) => ({
        kind: 'Kustomization' as const,
        namespace: str(d['namespace']) ?? ref.namespace,
        name: d['name'] as string,
      })),
    definedIn: file
      ? { file: file.file, line: file.line }
      : fromParent && ![key, RUN_KEY].includes(producerKey(fromParent.parent))
        ? { parent: fromParent.parent }
        : { file: '' },
  };
  return producer;
}

/** flux-local's path (repository-relative, or inside a mapped source copy) as a path in its source. */
function sourcePath(ws: Workspace, path: string): string {
  for (const m of ws.mapped) {
    if (m.root !== undefined && (path === m.root || path.startsWith(`${m.root}/`))) {
      return normalizeFluxPath(path.slice(m.root.length));
    }
  }
  return normalizeFluxPath(path);
}

function notSelectedReason(source: string): string {
  const kind = source.split('/')[0];
  if (kind && kind !== 'GitRepository') {
    const name = source.split('/').pop() ?? '';
    return `flux-local does not render ${kind} sources without a mapping (use --source ${name}=DIR)`;
  }
  return 'flux-local did not select this Kustomization';
}

function stripIndexAnnotations(manifest: Manifest): void {
  const strip = (metadata: unknown): void => {
    const meta = asRecord(metadata);
    const annotations = meta['annotations'];
    if (!annotations || typeof annotations !== 'object' || Array.isArray(annotations)) return;
    const map = annotations as Record<string, unknown>;
    for (const key of FLUX_LOCAL_STRIPPED_ANNOTATIONS) delete map[key];
    if (Object.keys(map).length === 0) delete meta['annotations'];
  };
  strip(manifest['metadata']);
  strip(asRecord(asRecord(manifest['spec'])['template'])['metadata']);
  if (manifest['kind'] === 'List' && Array.isArray(manifest['items'])) {
    for (const item of manifest['items']) strip(asRecord(item)['metadata']);
  }
}

function isKustomization(manifest: Manifest): boolean {
  const apiVersion = manifest['apiVersion'];
  return (
    manifest['kind'] === 'Kustomization' &&
    typeof apiVersion === 'string' &&
    apiVersion.startsWith('kustomize.toolkit.fluxcd.io/')
  );
}

function refOf(manifest: Manifest, fallbackNamespace: string): ProducerRef {
  const meta = objectMeta(manifest);
  return { kind: 'Kustomization', namespace: meta.namespace ?? fallbackNamespace, name: meta.name };
}

function releaseRefOf(manifest: Manifest): ProducerRef {
  const meta = objectMeta(manifest);
  return { kind: 'HelmRelease', namespace: meta.namespace ?? DEFAULT_NAMESPACE, name: meta.name };
}

function refOnly(ref: ProducerRef): ProducerRef {
  return { kind: ref.kind, namespace: ref.namespace, name: ref.name };
}

function withFile(error: RenderError, producer: Producer): RenderError {
  return 'file' in producer.definedIn && producer.definedIn.file !== ''
    ? { ...error, file: producer.definedIn.file }
    : error;
}

function sourceRefOf(
  manifest: Manifest,
): { kind: string; name: string; namespace?: string } | undefined {
  const ref = asRecord(asRecord(manifest['spec'])['sourceRef']);
  const name = str(ref['name']);
  if (name === undefined) return undefined;
  const namespace = str(ref['namespace']);
  return {
    kind: str(ref['kind']) ?? 'GitRepository',
    name,
    ...(namespace !== undefined ? { namespace } : {}),
  };
}

function sortProducers(producers: ReadonlyMap<string, Producer>): Producer[] {
  return [...producers.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, p]) => p);
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
