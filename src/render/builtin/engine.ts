/**
 * The builtin engine: discovers the Flux objects at the entry, then builds every
 * Kustomization in dependency order, taking nested Kustomizations from their parent's
 * rendered output. Failures stay with their producer; the rest of the cluster renders.
 */
import { join } from 'node:path';
import { FluxlensError, UsageError } from '../../errors.js';
import type { ProducerBuildDeps } from './build-producer.js';
import type { KustomizeCache } from './build-kustomization.js';
import type { TemplateCache } from '../helm/index.js';
import { RenderCache } from '../cache/index.js';
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
  withInstanceSyncs,
} from '../flux/index.js';
import type { EngineDeps, RenderEngine, RenderProgress, RenderRequest } from '../engine.js';
import { Producers } from './producers.js';
import { mapLimit } from '../map-limit.js';
import { materializeRepository } from '../materialize.js';
import { isDirectory } from '../tree.js';
import { createWorkspace, removeWorkspace } from '../workspace.js';

export class BuiltinEngine implements RenderEngine {
  readonly name = 'builtin' as const;

  constructor(private readonly deps: EngineDeps) {}

  async render(
    request: RenderRequest,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
    const workspace = await createWorkspace('fluxlens-');
    try {
      const repoRoot = await materializeRepository(this.deps.runner, request, workspace, {
        maxFiles: this.deps.settings.maxSourceFiles,
      });
      const entry = request.entry;
      if (!(await isDirectory(join(repoRoot, entry))))
        throw new UsageError(`entry path '${entry}' is not a folder`);
      const found = withInstanceSyncs(
        await discover(repoRoot, entry, await SourceIgnore.load(repoRoot)),
      );
      if (found.kustomizations.length === 0 && found.helmReleases.length === 0) {
        throw new FluxlensError(
          'no-flux-objects',
          `no Flux Kustomization or HelmRelease found under '${entry}'`,
        );
      }
      return await this.renderCluster(request, workspace, repoRoot, found, onProgress);
    } finally {
      await removeWorkspace(workspace);
    }
  }

  private async renderCluster(
    request: RenderRequest,
    workspace: string,
    repoRoot: string,
    found: Discovery,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster> {
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
    const sources = new Sources(workspace, repoRoot, request.repoUrl, request.sources, lookup);
    let builds = 0;
    const cache = await this.cache();
    const common = {
      runner: this.deps.runner,
      settings: this.deps.settings,
      cache: cache?.kustomize,
      templateCache: cache?.helm,
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
    if (cache) cluster.cache = { ...cache.kustomize.store.stats };
    return cluster;
  }

  /** One store for the render, keyed apart by each tool's name and version. */
  private async cache(): Promise<{ kustomize: KustomizeCache; helm?: TemplateCache } | undefined> {
    const settings = this.deps.settings.cache;
    if (settings === undefined) return undefined;
    const store = new RenderCache(settings.dir, settings.maxBytes);
    const tools = await this.toolVersions();
    const kustomize = { store, digests: new Map(), tool: `kustomize ${tools['kustomize']}` };
    if (tools['helm'] === undefined) return { kustomize };
    return { kustomize, helm: { store, tool: `helm ${tools['helm']}` } };
  }

  #versions: Promise<Record<string, string>> | undefined;

  /** Asked once per engine: both sides of a diff render with the same tools. */
  private toolVersions(): Promise<Record<string, string>> {
    this.#versions ??= this.askToolVersions();
    return this.#versions;
  }

  private async askToolVersions(): Promise<Record<string, string>> {
    const kustomize = (await this.deps.runner.run('kustomize', ['version'])).stdout.trim();
    if (!this.deps.settings.helm.enabled) return { kustomize };
    const helm = (await this.deps.runner.run('helm', ['version', '--short'])).stdout.trim();
    return { kustomize, helm };
  }
}
