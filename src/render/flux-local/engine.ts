/**
 * The flux-local engine: renders the cluster with the flux-local CLI (pinned 7.11.0) and
 * maps its output to the same model as the builtin engine. flux-local itself renders each
 * Kustomization with `flux build ks --dry-run`, so the object bodies are the flux CLI's;
 * what flux-local decides is which Kustomizations exist, with which spec, and the values
 * they substitute.
 *
 * This file runs flux-local and wires the steps; it must not parse flux-local's output or
 * messages itself. Beside it: flux-local-sources.ts (--sources), flux-local-output.ts
 * (`get ks` table, `build ks` objects), flux-local-failure.ts (what a failed run reports),
 * flux-local-producers.ts (Kustomization producers) and flux-local-helm.ts (HelmReleases).
 * unsafe-trees.ts walks the kustomization trees first: flux-local follows paths out of the
 * repository and fetches remote bases unasked, so a Kustomization whose files leave its
 * source (or, without settings.allowRemoteBases, name a remote base) fails with the builtin
 * engine's error and flux-local is not run at all (it cannot leave one out). The copy it
 * runs on is made like a Flux artifact: symlinks are dropped, as source-controller does.
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
 * - Every HelmRelease run builds all Kustomizations again (N+2 flux-local runs, one at
 *   a time: `flux build ks` writes generated kustomization files into the shared copy). A HelmRelease that flux-local cannot parse (no
 *   metadata.namespace, no chart) fails every HelmRelease's run (from code). Errors carry no file;
 *   chart objects carry the chart template (helm's `# Source:`) as their file.
 */
import { readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FluxlensError, UsageError, classify, errorMessage } from '../../errors.js';
import { ToolError } from '../../tool-runner.js';
import {
  type FoundObject,
  SourceIgnore,
  dependsOnCycles,
  discover,
  isFluxKustomization,
  isHelmRelease,
  refOf,
  appliedTwiceErrors,
} from '../flux/index.js';
import type { EngineDeps, RenderEngine, RenderProgress, RenderRequest } from '../engine.js';
import { cleanMessage, failedRun, refusedRun } from './failure.js';
import { refuseListedUnsafeTrees, refuseUnsafeTrees } from './unsafe-trees.js';
import { inflateReleases, releasesIn, type RunOutcome } from './helm.js';
import {
  assembleCluster,
  parseKustomizationTable,
  stripIndexAnnotations,
  withReleases,
} from './output.js';
import { DEFAULT_NAMESPACE, type Workspace } from './producers.js';
import { mapSources, sourcesArgs } from './sources.js';
import {
  materializeRepository,
  copyTree,
  isDirectory,
  createWorkspace,
  removeWorkspace,
} from '../workspace/index.js';
import { producerKey, type RenderedCluster } from '../../model/index.js';
import { parseDocuments } from '../../yaml/index.js';

export class FluxLocalEngine implements RenderEngine {
  readonly name = 'flux-local' as const;

  constructor(private readonly deps: EngineDeps) {}

  async render(
    request: RenderRequest,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    // A SetupError when flux-local is not installed; everything after is the repository's.
    await this.deps.runner.resolve('flux-local');
    const dir = await createWorkspace('fluxlens-fl-');
    try {
      const cluster = await this.renderIn(request, dir, onProgress);
      // Flux never reconciles a dependsOn cycle, whatever flux-local made of it; and
      // flux-local passes an object two producers apply through twice without a word.
      const twice = appliedTwiceErrors(
        cluster.objects,
        (m) => isFluxKustomization(m) || isHelmRelease(m),
      );
      return {
        ...cluster,
        errors: [...cluster.errors, ...dependsOnCycles(cluster.producers), ...twice],
      };
    } finally {
      await removeWorkspace(dir);
    }
  }

  private async renderIn(
    request: RenderRequest,
    dir: string,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    const { ws, entry } = await this.workspace(request, dir);
    const sourceArgs = await sourcesArgs(ws, this.deps.settings.maxSourceFiles);
    const tools = await this.toolVersions();
    // flux-local follows paths out of the repository and fetches remote bases unasked: the
    // builtin engine's check runs first.
    const allowRemote = this.deps.settings.allowRemoteBases;
    const checked = new Set<string>();
    const refused = await refuseUnsafeTrees(ws, entry, checked, allowRemote);
    if (refused.length > 0) return refusedRun(ws, [], refused, tools);

    const listing = await this.run(ws, ['get', 'ks', '-A', '--path', entry, ...sourceArgs]);
    if (!listing.ok) return failedRun(ws, [], listing.message, tools);
    const listed = parseKustomizationTable(listing.stdout);
    const late = await refuseListedUnsafeTrees(ws, listed, checked, allowRemote);
    if (late.length > 0) return refusedRun(ws, listed, late, tools);
    onProgress?.({ done: 0, total: listed.length });
    if (listed.length === 0) return withReleases(ws, assembleCluster(ws, listed, [], tools), []);

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
    const cluster = assembleCluster(
      ws,
      listed,
      parsed.documents.map((d) => d.manifest),
      tools,
    );
    if (!this.deps.settings.helm.enabled) {
      onProgress?.({ done: listed.length, total: listed.length });
      return cluster;
    }
    return await this.inflate(ws, entry, sourceArgs, cluster, listed.length, onProgress);
  }

  /**
   * The repository materialized in `dir`, the Kustomizations (and, with helm, HelmReleases)
   * written under the entry, reported even when flux-local does not select them, and the
   * `--source` folders copied for flux-local.
   */
  private async workspace(
    request: RenderRequest,
    dir: string,
  ): Promise<{ ws: Workspace; entry: string }> {
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
      const key = producerKey(refOf(item.manifest, DEFAULT_NAMESPACE));
      if (!releaseFiles.has(key)) releaseFiles.set(key, item);
    }
    const mapped = await mapSources(
      request.sources,
      request.repoDir,
      dir,
      this.deps.settings.maxSourceFiles,
    );
    return { ws: { dir, repoRoot, files, releaseFiles, mapped }, entry };
  }

  /** Adds the HelmReleases of the `build ks` output, one flux-local run each. */
  private async inflate(
    ws: Workspace,
    entry: string,
    sourceArgs: readonly string[],
    cluster: RenderedCluster,
    built: number,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    const releases = releasesIn(cluster.objects);
    const total = built + releases.length;
    let done = built;
    onProgress?.({ done, total });
    const inflated = await inflateReleases(
      {
        settings: this.deps.settings,
        repoRoot: ws.repoRoot,
        scratch: ws.dir,
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
  }

  /** The repository as Flux would see it, in `workspace/repository`, made a git work tree. */
  private async materialize(request: RenderRequest, workspace: string): Promise<string> {
    const limits = { maxFiles: this.deps.settings.maxSourceFiles };
    const exported = await materializeRepository(
      this.deps.runner,
      request,
      join(workspace, 'export'),
      limits,
    );
    // A Flux artifact has no symlinks; flux-local would follow them anywhere on this disk.
    const dest = join(workspace, 'repository');
    await copyTree(exported, dest, { mode: 'link', keep: () => true, limits });
    await rm(exported, { recursive: true, force: true });
    // Neither copy carries .git; flux-local finds its root with `git rev-parse --show-toplevel`.
    await this.deps.runner.run('git', ['-C', dest, 'init', '--quiet'], {
      env: { GIT_CONFIG_NOSYSTEM: '1' },
    });
    return realpath(dest);
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
      // A cancelled review is no failure of flux-local's: the whole render stops.
      if (classify(err) === 'cancelled') throw err;
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
