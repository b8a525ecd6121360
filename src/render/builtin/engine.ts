/**
 * The builtin engine: discovers the Flux objects at the entry, then builds every
 * Kustomization in dependency order, taking nested Kustomizations from their parent's
 * rendered output. Failures stay with their producer; the rest of the cluster renders.
 */
import { join, resolve } from 'node:path';
import { FluxlensError, SetupError, UsageError } from '../../errors.js';
import type { ProducerBuildDeps } from './build-producer.js';
import type { ReleaseKeying } from './build-helm-release.js';
import type { KustomizeKeying } from './build-keys.js';
import type { TemplateCache } from '../helm/index.js';
import { KustomizeServer } from '../kustomize/index.js';
import { RenderCache, readCluster, writeCluster, type RenderMemo } from '../cache/index.js';
import { resolveRevision } from '../../git/index.js';
import type { ToolRunner } from '../../tool-runner.js';
import { keepable, keepsWhole, seedMemo, wholeRenderKey } from './whole-render.js';
import type { CarriedBuilds } from './carried-builds.js';
import {
  ReviewReads,
  readRenderReads,
  writeRenderReads,
  type RenderReads,
} from './render-reads.js';
import {
  type Manifest,
  type RenderedCluster,
  objectMeta,
  readConfigData,
} from '../../model/index.js';
import { secretKeysOf } from '../../redact/index.js';
import {
  type Discovery,
  SourceIgnore,
  Sources,
  discover,
  withEntrySync,
  withInstanceSyncs,
} from '../flux/index.js';
import type { EngineDeps, RenderEngine, RenderProgress, RenderRequest } from '../engine.js';
import { Producers } from './producers.js';
import { accountReads } from './cluster-reads.js';
import {
  mapLimit,
  materializeFiles,
  isDirectory,
  walkOnce,
  type TreeEntry,
  createWorkspace,
  removeWorkspace,
} from '../workspace/index.js';
import { buildReads, recallLeads } from './build-reads.js';
import { toolVersion } from './tool-version.js';
import type { LeadsMemo } from './export-set.js';

export class BuiltinEngine implements RenderEngine {
  readonly name = 'builtin' as const;

  constructor(private readonly deps: EngineDeps) {}

  async render(
    request: RenderRequest,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    const sha = await this.commit(request);
    const kept = await this.wholeRender(request, sha);
    if (kept?.kept !== undefined) {
      if (request.memo) seedMemo(request.memo, kept.kept);
      const store = this.store();
      if (request.memo && sha !== undefined && store)
        this.#reads.remember(request.memo, sha, await readRenderReads(store, kept.key));
      return kept.kept;
    }
    const workspace = await createWorkspace('fluxlens-');
    const server =
      (await this.serverVersion()) !== undefined
        ? new KustomizeServer(this.deps.runner)
        : undefined;
    // Started now, it is ready by the first build: export and discovery come first.
    server?.warm();
    try {
      // git names what changed since the review's other render while the files are written.
      const carrying =
        sha === undefined
          ? Promise.resolve(undefined)
          : this.#reads.carried(this.deps.runner, request, sha);
      // Awaited below; a failed export must not leave it rejected with no one listening.
      carrying.catch(() => undefined);
      const memo = { leads: this.#leads, store: this.store() };
      const select = buildReads(this.deps.runner, resolve(request.repoDir), request.entry, memo);
      const { root: repoRoot, lacking } = await materializeFiles(
        this.deps.runner,
        request,
        workspace,
        { maxFiles: this.deps.settings.maxSourceFiles },
        select,
      );
      const entry = request.entry;
      if (!(await isDirectory(join(repoRoot, entry))))
        throw new UsageError(`entry path '${entry}' is not a folder`);
      // Files the clone lacks may hide objects: then nothing found is carried either way.
      const complete = lacking.size === 0;
      const carried = await carrying;
      // The repository is listed once, for discovery's ignore rules and for its artifact.
      const walk = walkOnce();
      const found =
        (complete ? carried?.discovery : undefined) ??
        withEntrySync(
          withInstanceSyncs(
            await discover(
              repoRoot,
              entry,
              await SourceIgnore.load(repoRoot, undefined, await walk(repoRoot)),
            ),
          ),
          request.repoUrl,
        );
      if (found.kustomizations.length === 0 && found.helmReleases.length === 0) {
        throw new FluxlensError(
          'no-flux-objects',
          `no Flux Kustomization or HelmRelease found under '${entry}'`,
        );
      }
      // What this render reads, for the review's other render and a render kept whole.
      const reads =
        sha === undefined
          ? undefined
          : this.#reads.begin(request.memo, sha, complete ? found : undefined);
      const where = {
        workspace,
        repoRoot,
        lacking,
        wholeKey: kept?.key,
        server,
        reads: reads && { record: reads, carried: carried?.builds },
        walk,
      };
      return await this.renderCluster(request, where, found, onProgress);
    } finally {
      await server?.close();
      await removeWorkspace(workspace);
    }
  }

  private async renderCluster(
    request: RenderRequest,
    where: {
      workspace: string;
      repoRoot: string;
      lacking: ReadonlySet<string>;
      /** Where to keep the whole render, if it may be kept (see whole-render.ts). */
      wholeKey: string | undefined;
      /** Builds through one kustomize-server process when it is installed. */
      server: KustomizeServer | undefined;
      /** What this render reads, and what the review's other render's record still tells. */
      reads: { record: RenderReads; carried: CarriedBuilds | undefined } | undefined;
      walk: (root: string) => Promise<TreeEntry[]>;
    },
    found: Discovery,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    const { workspace, repoRoot, lacking } = where;
    const producers = new Producers(found, this.deps.settings.helm.enabled);
    const sourceObjects = new Map<string, Manifest>();
    const remember = (m: Manifest): void => {
      const meta = objectMeta(m);
      sourceObjects.set(`${meta.kind}/${meta.namespace ?? ''}/${meta.name}`, m);
    };
    found.sources.forEach((s) => remember(s.manifest));
    found.configData.forEach((s) => remember(s.manifest));
    // Objects of the cluster rendered so far, then the ones written under the entry.
    const lookup = (kind: string, ns: string, name: string): Manifest | undefined =>
      producers.clusterObject(kind, ns, name) ?? sourceObjects.get(`${kind}/${ns}/${name}`);
    const { repoUrl, sources: mappings } = request;
    const sources = new Sources(workspace, repoRoot, repoUrl, mappings, lookup, where.walk);
    let builds = 0;
    const cache = await this.keying(request.memo);
    if (where.reads) {
      const { record, carried } = where.reads;
      cache.kustomize.reads = { record: record.builds, carried };
      if (cache.release) cache.release.reads = { record: record.releases, carried };
    }
    const common = {
      runner: this.deps.runner,
      settings: this.deps.settings,
      keying: cache.kustomize,
      lacking,
      kustomizeServer: where.server,
      scratchDir: () => join(workspace, `build-${builds++}`),
      configData: (kind: 'ConfigMap' | 'Secret', ns: string, name: string) => {
        const m = lookup(kind, ns, name);
        return m ? readConfigData(m) : undefined;
      },
      secretKeys: (kind: 'ConfigMap' | 'Secret', ns: string, name: string) => {
        const rendered = producers.clusterRendered(kind, ns, name);
        if (rendered) return secretKeysOf(rendered.manifest, rendered.secret);
        const m = sourceObjects.get(`${kind}/${ns}/${name}`);
        return m ? secretKeysOf(m) : new Set<string>();
      },
    };
    const deps: ProducerBuildDeps = {
      sources,
      kustomize: common,
      helm: {
        ...common,
        templateCache: cache.helm,
        keying: cache.release,
        filePrefix: async (kind, namespace, name) => {
          const resolved = await sources.resolve({ kind, namespace, name });
          return resolved.kind === 'found' && resolved.isRepository ? '' : `${resolved.id}:`;
        },
        chartSources: {
          lookup,
          sourceDir: async (kind, namespace, name) => {
            const resolved = await sources.resolve({ kind, namespace, name });
            return resolved.kind === 'found' ? resolved.root : undefined;
          },
        },
      },
    };
    for (let round = producers.nextRound(); round.length > 0; round = producers.nextRound()) {
      await mapLimit(round, this.deps.settings.concurrency, async (entry) => {
        await producers.render(entry, deps);
        onProgress?.(producers.progress());
      });
    }
    const cluster = producers.result({ ...(await this.toolVersions()) });
    await accountReads(cluster, { found, definitions: producers.definitions(), sources });
    const store = cache.kustomize.store;
    const carried = where.reads?.carried?.taken;
    if (store) cluster.cache = { ...store.stats, ...(carried ? { carried } : {}) };
    if (store && where.wholeKey !== undefined) {
      const definitions = producers.definitions();
      if (keepsWhole(cluster, { lacking, definitions, lookup })) {
        await writeCluster(store, where.wholeKey, cluster);
        if (where.reads) await writeRenderReads(store, where.wholeKey, where.reads.record);
      }
    }
    return cluster;
  }

  /**
   * The commit a render of `request` renders, when its render may be kept or carried: a
   * render with a mapped folder or remote bases reads from outside the commit.
   */
  private async commit(request: RenderRequest): Promise<string | undefined> {
    if (request.rev === undefined || !keepable(request, this.deps.settings)) return undefined;
    return commitOf(this.deps.runner, request.repoDir, request.rev);
  }

  /**
   * The render of this commit kept whole by an earlier run, or the key to keep this one
   * under; undefined without a render cache or a commit (a folder on disk changes under
   * its name).
   */
  private async wholeRender(
    request: RenderRequest,
    sha: string | undefined,
  ): Promise<{ key: string; kept?: RenderedCluster } | undefined> {
    const store = this.store();
    if (store === undefined || sha === undefined) return undefined;
    const key = wholeRenderKey(sha, request, this.deps.settings, await this.toolVersions());
    const kept = await readCluster(store, key);
    if (kept === undefined) return { key };
    await recallLeads({ leads: this.#leads, store }, sha, request.entry);
    // The figures of this run: nothing was built, every producer came from the cache.
    return { key, kept: { ...kept, cache: { hits: 0, misses: 0, whole: true } } };
  }

  /**
   * How builds are keyed for this render: one store on disk, keyed apart by each tool's
   * name and version, and the memo of the review's other render. With neither, producers
   * are still keyed: their keys tell the review what the PR changed (Producer.inputKey).
   */
  private async keying(memo: RenderMemo | undefined): Promise<{
    kustomize: KustomizeKeying;
    helm?: TemplateCache;
    release?: ReleaseKeying;
  }> {
    const settings = this.deps.settings.cache;
    const store = settings && new RenderCache(settings.dir, settings.maxBytes);
    const tools = await this.toolVersions();
    // A build by kustomize-server is kept apart from the binary's, though they agree.
    const server = tools['kustomize-server'];
    const kustomizeTool = `kustomize ${tools['kustomize']}${server ? `, ${server}` : ''}`;
    const kustomize = { store, memo, digests: new Map(), tool: kustomizeTool };
    if (tools['helm'] === undefined) return { kustomize };
    const helmTool = `helm ${tools['helm']}`;
    return {
      kustomize,
      ...(store ? { helm: { store, tool: helmTool } } : {}),
      // Post-renderers run kustomize: a release's key names both tools.
      release: { tool: `${helmTool}, ${kustomizeTool}`, memo, store },
    };
  }

  /** The render cache on disk, for what is not a build (a build's own store counts builds). */
  private store(): RenderCache | undefined {
    const settings = this.deps.settings.cache;
    return settings && new RenderCache(settings.dir, settings.maxBytes);
  }

  #versions: Promise<Record<string, string>> | undefined;
  /** What each blob leads builds to read: the two revisions of a review share most blobs. */
  readonly #leads: LeadsMemo = new Map();
  /** What the last render with each memo read (carried-builds.ts), and of which commit. */
  readonly #reads = new ReviewReads();

  /**
   * Asked once per engine: both sides of a diff render with the same tools. kustomize-server
   * is named when it builds, so the rendered cluster says what built it.
   */
  private toolVersions(): Promise<Record<string, string>> {
    this.#versions ??= this.askToolVersions();
    return this.#versions;
  }

  #server: Promise<string | undefined> | undefined;

  /**
   * kustomize-server's version when it is installed and may build (remote bases are the
   * binary's to fetch), asked once per engine; undefined: every build runs kustomize.
   */
  private serverVersion(): Promise<string | undefined> {
    const settings = this.deps.settings;
    this.#server ??=
      settings.allowRemoteBases || !settings.kustomizeServer
        ? Promise.resolve(undefined)
        : toolVersion(this.deps.runner, this.store(), 'kustomize-server', ['--version']).catch(
            (err: unknown) => {
              if (err instanceof SetupError) return undefined;
              throw err;
            },
          );
    return this.#server;
  }

  private async askToolVersions(): Promise<Record<string, string>> {
    const ask = (tool: 'kustomize' | 'helm', args: string[]) =>
      toolVersion(this.deps.runner, this.store(), tool, args);
    const server = await this.serverVersion();
    const kustomize = {
      kustomize: await ask('kustomize', ['version']),
      ...(server !== undefined ? { 'kustomize-server': server } : {}),
    };
    if (!this.deps.settings.helm.enabled) return kustomize;
    return { ...kustomize, helm: await ask('helm', ['version', '--short']) };
  }
}

/**
 * The commit `request.rev` names; undefined when git cannot say, and materializing the
 * revision then fails with the words the user needs.
 */
async function commitOf(
  runner: ToolRunner,
  repoDir: string,
  rev: string,
): Promise<string | undefined> {
  if (/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(rev)) return rev;
  return resolveRevision(runner, resolve(repoDir), rev).catch(() => undefined);
}
