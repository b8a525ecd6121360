/**
 * The builtin engine: writes out the revision, discovers the Flux objects at the entry,
 * then builds every Kustomization in dependency order, taking nested Kustomizations from
 * their parent's rendered output. Failures stay with their producer; the rest of the
 * cluster renders. What reuse/ holds from before (a render kept whole, what the review's
 * other render read) is taken instead of running it again.
 */
import { join } from 'node:path';
import { FluxlensError, UsageError } from '../../errors.js';
import type { ProducerBuildDeps } from './build-producer.js';
import {
  builtinTools,
  EngineReuse,
  helmServerVersion,
  kustomizeServerVersion,
  type AskVersion,
  type RenderReuse,
} from './reuse/index.js';
import { KustomizeServer, ToolServer, type ToolServerEvents } from '../kustomize/index.js';
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
import { revisionMappings } from './revision-mappings.js';
import {
  mapLimit,
  materializeFiles,
  isDirectory,
  walkOnce,
  type TreeEntry,
  createWorkspace,
  removeWorkspace,
} from '../workspace/index.js';

export class BuiltinEngine implements RenderEngine {
  readonly name = 'builtin' as const;
  readonly #reuse: EngineReuse;

  constructor(private readonly deps: EngineDeps) {
    this.#reuse = new EngineReuse({ ...deps, tools: () => this.toolVersions() });
  }

  async render(
    request: RenderRequest,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    const reuse = await this.#reuse.before(request);
    if ('kept' in reuse) return reuse.kept;
    try {
      return await this.renderAnew(request, reuse, onProgress);
    } finally {
      await reuse.release();
    }
  }

  private async renderAnew(
    request: RenderRequest,
    reuse: RenderReuse,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    const workspace = await createWorkspace('fluxlens-');
    const servers = await this.servers();
    // Started now, they are ready by the first build: export and discovery come first.
    servers.server?.warm();
    servers.helmServer?.warm();
    try {
      const revision = await this.materialize(request, workspace, reuse);
      const found = await this.discover(request, revision, reuse);
      const where = { ...revision, ...servers, reuse };
      return await this.renderCluster(request, where, found, onProgress);
    } finally {
      await Promise.all([servers.server?.close(), servers.helmServer?.close()]);
      await removeWorkspace(workspace);
    }
  }

  /** The render's resident helpers, for those installed and allowed. */
  private async servers(): Promise<Servers> {
    const [kustomize, helm] = await Promise.all([this.serverVersion(), this.helmServerVersion()]);
    const { runner } = this.deps;
    return {
      server:
        kustomize !== undefined
          ? new KustomizeServer(runner, this.told('kustomize-server'))
          : undefined,
      helmServer:
        helm !== undefined
          ? new ToolServer(
              runner,
              { server: 'helm-server', binary: 'helm' },
              this.told('helm-server'),
            )
          : undefined,
    };
  }

  /** How a helper's run that its binary took over is told to the logs. */
  private told(helper: string): ToolServerEvents {
    const warn = this.deps.warn;
    return {
      fellBack: (command, reason) =>
        warn?.('a helper could not serve a run: its binary ran it', { helper, command, reason }),
    };
  }

  /** Writes out of the revision what its builds can read, and checks the entry is a folder. */
  private async materialize(
    request: RenderRequest,
    workspace: string,
    reuse: RenderReuse,
  ): Promise<Revision> {
    const { root: repoRoot, lacking } = await materializeFiles(
      this.deps.runner,
      request,
      workspace,
      { maxFiles: this.deps.settings.maxSourceFiles },
      reuse.select,
    );
    const entry = request.entry;
    if (!(await isDirectory(join(repoRoot, entry))))
      throw new UsageError(`entry path '${entry}' is not a folder`);
    // The repository is listed once, for discovery's ignore rules and for its artifact.
    return { workspace, repoRoot, lacking, walk: walkOnce() };
  }

  /** The Flux objects under the entry, as the other render found them or found anew. */
  private async discover(
    request: RenderRequest,
    revision: Revision,
    reuse: RenderReuse,
  ): Promise<Discovery> {
    const { repoRoot, lacking, walk } = revision;
    const entry = request.entry;
    const found =
      (await reuse.discovery(lacking)) ??
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
    reuse.begin(found, lacking);
    return found;
  }

  /** Builds every producer, round by round in dependency order, and keeps what may be kept. */
  private async renderCluster(
    request: RenderRequest,
    where: Revision & Servers & { reuse: RenderReuse },
    found: Discovery,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    const producers = new Producers(found, this.deps.settings.helm.enabled);
    const objects = clusterObjects(found, producers);
    const deps = await this.buildDeps(request, where, objects);
    for (let round = producers.nextRound(); round.length > 0; round = producers.nextRound()) {
      await mapLimit(round, this.deps.settings.concurrency, async (entry) => {
        await producers.render(entry, deps);
        onProgress?.(producers.progress());
      });
    }
    const cluster = producers.result({ ...(await this.toolVersions()) });
    const { lacking } = where;
    const definitions = producers.definitions();
    await accountReads(cluster, { found, definitions, sources: deps.sources });
    await where.reuse.after(cluster, { lacking, definitions, lookup: objects.lookup });
    return cluster;
  }

  /** What every build of this render is given: its sources, tools, keys and the cluster. */
  private async buildDeps(
    request: RenderRequest,
    where: Revision & Servers & { reuse: RenderReuse },
    objects: ClusterObjects,
  ): Promise<ProducerBuildDeps> {
    const { workspace, repoRoot, lacking } = where;
    const { lookup, secretKeys } = objects;
    const { repoUrl } = request;
    const mappings = await revisionMappings(request, repoRoot);
    const generators = (ns: string) => objects.objectsOfKind('ArtifactGenerator', ns);
    const sources = new Sources(
      workspace,
      repoRoot,
      repoUrl,
      mappings,
      lookup,
      where.walk,
      generators,
    );
    let builds = 0;
    const keying = await where.reuse.keying();
    const common = {
      runner: this.deps.runner,
      settings: this.deps.settings,
      keying: keying.kustomize,
      lacking,
      kustomizeServer: where.server,
      scratchDir: () => join(workspace, `build-${builds++}`),
      configData: (kind: 'ConfigMap' | 'Secret', ns: string, name: string) => {
        const m = lookup(kind, ns, name);
        return m ? readConfigData(m) : undefined;
      },
      secretKeys,
    };
    return {
      sources,
      objectsOfKind: objects.objectsOfKind,
      kustomize: common,
      helm: {
        ...common,
        templateCache: keying.helm,
        helmServer: where.helmServer,
        keying: keying.release,
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
  }

  #versions: Promise<Record<string, string>> | undefined;

  /**
   * Asked once per engine: both sides of a diff render with the same tools. kustomize-server
   * is named when it builds, so the rendered cluster says what built it.
   */
  private toolVersions(): Promise<Record<string, string>> {
    this.#versions ??= this.askToolVersions();
    return this.#versions;
  }

  #server: Promise<string | undefined> | undefined;

  /** kustomize-server's version when it may build (see kustomizeServerVersion), asked once. */
  private serverVersion(): Promise<string | undefined> {
    this.#server ??= kustomizeServerVersion(this.#ask, this.deps.settings);
    return this.#server;
  }

  #helmServer: Promise<string | undefined> | undefined;

  /** helm-server's version when it may render (see helmServerVersion), asked once. */
  private helmServerVersion(): Promise<string | undefined> {
    this.#helmServer ??= helmServerVersion(this.#ask, this.deps.settings);
    return this.#helmServer;
  }

  private async askToolVersions(): Promise<Record<string, string>> {
    const [kustomize, helm] = await Promise.all([this.serverVersion(), this.helmServerVersion()]);
    return builtinTools(this.#ask, this.deps.settings, { kustomize, helm });
  }

  readonly #ask: AskVersion = (tool, args) => this.#reuse.toolVersion(tool, args);
}

/** The resident helpers of one render; absent: each run is a process of the tool. */
interface Servers {
  /** Builds through one kustomize-server process when it is installed. */
  server: KustomizeServer | undefined;
  /** Renders HelmReleases through one helm-server process when it is installed. */
  helmServer: ToolServer | undefined;
}

/** The revision written out for a render, and the listing of it its steps share. */
interface Revision {
  workspace: string;
  repoRoot: string;
  /** Files of the revision whose content the clone lacks (see materialize). */
  lacking: ReadonlySet<string>;
  walk: (root: string) => Promise<TreeEntry[]>;
}

interface ClusterObjects {
  /** Objects of the cluster rendered so far, then the ones written under the entry. */
  lookup: (kind: string, namespace: string, name: string) => Manifest | undefined;
  /** The objects of a kind in a namespace (ArtifactGenerators, ResourceSetInputProviders). */
  objectsOfKind: (kind: string, namespace: string) => Manifest[];
  /** The keys of a ConfigMap or Secret whose values derive from a Secret. */
  secretKeys: (kind: 'ConfigMap' | 'Secret', namespace: string, name: string) => Set<string>;
}

/** How the builds of a render look up the objects of the cluster. */
function clusterObjects(found: Discovery, producers: Producers): ClusterObjects {
  const sourceObjects = new Map<string, Manifest>();
  const remember = (m: Manifest): void => {
    const meta = objectMeta(m);
    sourceObjects.set(`${meta.kind}/${meta.namespace ?? ''}/${meta.name}`, m);
  };
  found.sources.forEach((s) => remember(s.manifest));
  found.configData.forEach((s) => remember(s.manifest));
  return {
    lookup: (kind, ns, name) =>
      producers.source(kind, ns, name) ?? sourceObjects.get(`${kind}/${ns}/${name}`),
    objectsOfKind: (kind, ns) => producers.objectsOfKind(kind, ns),
    secretKeys: (kind, ns, name) => {
      const rendered = producers.clusterRendered(kind, ns, name);
      if (rendered) return secretKeysOf(rendered.manifest, rendered.secret);
      const m = sourceObjects.get(`${kind}/${ns}/${name}`);
      return m ? secretKeysOf(m) : new Set<string>();
    },
  };
}
