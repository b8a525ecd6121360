/**
 * What the builtin engine takes instead of running it again, render by render: before a
 * render, the render of its commit kept whole by an earlier run, or what the review's other
 * render read that this one may carry; after it, the render kept whole when nothing outside
 * its key shaped it but charts the unavailable memory answered for. Such a render is read
 * back whole while the memory still holds each of those failures; once one is no longer
 * held (run out, asked again, or fetched since), what it read is carried instead, so that
 * only those releases are tried again. Across an engine's renders it remembers what the
 * last render with each memo read and what each blob leads builds to read.
 */
import { resolve } from 'node:path';
import { resolveRevision } from '../../../git/index.js';
import { isUnavailable, type RenderedCluster } from '../../../model/index.js';
import type { FileLock } from '../../../git/index.js';
import type { ToolName, ToolRunner } from '../../../tool-runner.js';
import { RenderCache, readCluster, writeCluster } from '../../cache/index.js';
import type { RenderRequest } from '../../engine.js';
import type { Discovery } from '../../flux/index.js';
import type { TemplateCache } from '../../helm/index.js';
import type { RenderSettings } from '../../settings.js';
import type { FileSelector } from '../../workspace/index.js';
import type { KustomizeKeying } from './build-keys.js';
import { buildReads, recallLeads } from './build-reads.js';
import type { LeadsMemo } from './export-set.js';
import type { ReleaseKeying } from './release-key.js';
import {
  ReviewReads,
  carriedReads,
  readRenderReads,
  writeRenderReads,
  type Carried,
  type RenderReads,
} from './render-reads.js';
import { holdsOf, keptRendersStillHold } from './kept-renders.js';
import { toolVersion } from './tool-version.js';
import { keepable, wholeRenderKey } from './render-key.js';
import { keepsWhole, seedMemo, type KeepContext } from './whole-render.js';

export interface EngineReuseDeps {
  runner: ToolRunner;
  settings: RenderSettings;
  /** The versions of the tools the engine renders with, which every key names. */
  tools: () => Promise<Record<string, string>>;
}

/** How the builds of one render are keyed, and the stores that use the keys. */
export interface Keying {
  kustomize: KustomizeKeying;
  helm?: TemplateCache;
  release?: ReleaseKeying;
}

/**
 * An earlier render of a commit, kept under `key`: read back whole (`kept`), or what it read
 * (`reads`) when a failure it holds is no longer remembered and rendering again may differ.
 */
interface WholeRender {
  key: string;
  kept?: RenderedCluster;
  reads?: RenderReads;
}

export class EngineReuse {
  /** What each blob leads builds to read: the two revisions of a review share most blobs. */
  readonly #leads: LeadsMemo = new Map();
  /** What the last render with each memo read (carried-builds.ts), and of which commit. */
  readonly #reads = new ReviewReads();

  constructor(private readonly deps: EngineReuseDeps) {}

  /**
   * The render of `request`'s commit kept whole, handed to the review's other render as
   * rendering it would have; else what this render may take and must record.
   */
  async before(request: RenderRequest): Promise<{ kept: RenderedCluster } | RenderReuse> {
    const sha = await this.commit(request);
    const whole = await this.wholeRender(request, sha);
    if (whole === undefined || whole.kept !== undefined) return this.prepare(request, sha, whole);
    // Another worker may be rendering this commit (the base of a burst of PRs): wait for
    // it, then read what it kept instead of rendering the same commit at once.
    const hold = await this.hold(whole.key);
    if (hold === undefined) return this.prepare(request, sha, whole);
    try {
      const prepared = await this.prepare(request, sha, await this.wholeRender(request, sha), hold);
      if ('kept' in prepared) await hold.release();
      return prepared;
    } catch (err) {
      await hold.release();
      throw err;
    }
  }

  /** The render kept whole, or what a render of `request` takes and records. */
  private async prepare(
    request: RenderRequest,
    sha: string | undefined,
    whole: WholeRender | undefined,
    hold?: FileLock,
  ): Promise<{ kept: RenderedCluster } | RenderReuse> {
    if (whole?.kept !== undefined) {
      if (request.memo) seedMemo(request.memo, whole.kept);
      const store = this.store();
      if (request.memo && sha !== undefined && store)
        this.#reads.remember(
          request.memo,
          sha,
          whole.reads ?? (await readRenderReads(store, whole.key)),
        );
      return { kept: whole.kept };
    }
    // The same commit rendered before: nothing it read changed. Else git names what changed
    // since the review's other render while the files are written.
    const carrying =
      sha === undefined
        ? Promise.resolve(undefined)
        : whole?.reads
          ? Promise.resolve(carriedReads(whole.reads, [], request.entry))
          : this.#reads.carried(this.deps.runner, request, sha);
    // Awaited after the export; a failed export must not leave it rejected and unhandled.
    carrying.catch(() => undefined);
    const memo = { leads: this.#leads, store: this.store() };
    const select = buildReads(this.deps.runner, resolve(request.repoDir), request.entry, memo);
    return new RenderReuse(this.deps, this.#reads, request, {
      sha,
      wholeKey: whole?.key,
      carrying,
      select,
      hold,
    });
  }

  /**
   * The hold on a whole render's key while this render makes it; none past the wait bound
   * (a holder that renders for longer than a tool may run), when the render goes ahead.
   */
  private async hold(key: string): Promise<FileLock | undefined> {
    const store = this.store();
    if (store === undefined) return undefined;
    const { runner, settings } = this.deps;
    return store.hold(key, { signal: runner.signal, maxWaitMs: settings.toolTimeoutMs });
  }

  /** A tool's version, kept in the render cache by the binary it is (tool-version.ts). */
  toolVersion(tool: ToolName, args: string[]): Promise<string> {
    return toolVersion(this.deps.runner, this.store(), tool, args);
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
  ): Promise<WholeRender | undefined> {
    const store = this.store();
    if (store === undefined || sha === undefined) return undefined;
    const key = wholeRenderKey(sha, request, this.deps.settings, await this.deps.tools());
    const kept = await readCluster(store, key);
    if (kept === undefined) return { key };
    let reads: RenderReads | undefined;
    let holds: string[] | undefined = [];
    if (kept.errors.some(isUnavailable)) {
      reads = await readRenderReads(store, key);
      holds = holdsOf(kept, reads.unavailable);
      const held = holds && (await keptRendersStillHold(holds, this.deps.settings));
      if (!held) return { key, reads };
    }
    await recallLeads({ leads: this.#leads, store }, sha, request.entry);
    // The figures of this run: nothing was built, every producer came from the cache.
    const whole: RenderedCluster = {
      ...kept,
      cache: { hits: 0, misses: 0, whole: true as const },
      kept: { holds: holds ?? [] },
    };
    return reads ? { key, kept: whole, reads } : { key, kept: whole };
  }

  /** The render cache on disk, for what is not a build (a build's own store counts builds). */
  private store(): RenderCache | undefined {
    const settings = this.deps.settings.cache;
    return settings && new RenderCache(settings.dir, settings.maxBytes);
  }
}

/** What one render takes instead of running it again, and what it records for the next. */
export class RenderReuse {
  /** The files of the revision its builds can read (build-reads.ts). */
  readonly select: FileSelector;
  readonly #sha: string | undefined;
  /** Where to keep the whole render, if it may be kept (see whole-render.ts). */
  readonly #wholeKey: string | undefined;
  readonly #carrying: Promise<Carried | undefined>;
  #carried: Carried | undefined;
  /** What this render reads, for the review's other render and a render kept whole. */
  #record: RenderReads | undefined;
  #keying: Keying | undefined;
  /** Held from before the render until it is kept (or not): see EngineReuse.hold. */
  readonly #hold: FileLock | undefined;

  constructor(
    private readonly deps: EngineReuseDeps,
    private readonly reads: ReviewReads,
    private readonly request: RenderRequest,
    from: {
      sha: string | undefined;
      wholeKey: string | undefined;
      carrying: Promise<Carried | undefined>;
      select: FileSelector;
      hold: FileLock | undefined;
    },
  ) {
    this.select = from.select;
    this.#hold = from.hold;
    this.#sha = from.sha;
    this.#wholeKey = from.wholeKey;
    this.#carrying = from.carrying;
  }

  /**
   * What the review's other render found under the entry, when nothing in it changed and
   * the revision lacks no file (files the clone lacks may hide objects: then nothing found
   * is carried either way).
   */
  async discovery(lacking: ReadonlySet<string>): Promise<Discovery | undefined> {
    this.#carried = await this.#carrying;
    return lacking.size === 0 ? this.#carried?.discovery : undefined;
  }

  /** Starts the record of what this render reads, with what its discovery found. */
  begin(found: Discovery, lacking: ReadonlySet<string>): void {
    if (this.#sha === undefined) return;
    const discovery = lacking.size === 0 ? found : undefined;
    this.#record = this.reads.begin(this.request.memo, this.#sha, discovery);
  }

  /**
   * How builds are keyed for this render: one store on disk, keyed apart by each tool's
   * name and version, and the memo of the review's other render. With neither, producers
   * are still keyed: their keys tell the review what the PR changed (Producer.inputKey).
   */
  async keying(): Promise<Keying> {
    const settings = this.deps.settings.cache;
    const store = settings && new RenderCache(settings.dir, settings.maxBytes);
    const memo = this.request.memo;
    const tools = await this.deps.tools();
    // A build by kustomize-server is kept apart from the binary's, though they agree.
    const server = tools['kustomize-server'];
    const kustomizeTool = `kustomize ${tools['kustomize']}${server ? `, ${server}` : ''}`;
    const kustomize: KustomizeKeying = { store, memo, digests: new Map(), tool: kustomizeTool };
    // So is a render by helm-server from the helm binary's.
    const helmServer = tools['helm-server'];
    const helmTool =
      tools['helm'] === undefined
        ? undefined
        : `helm ${tools['helm']}${helmServer ? `, ${helmServer}` : ''}`;
    const keying: Keying =
      helmTool === undefined
        ? { kustomize }
        : {
            kustomize,
            ...(store ? { helm: { store, tool: helmTool } } : {}),
            // Post-renderers run kustomize: a release's key names both tools.
            release: { tool: `${helmTool}, ${kustomizeTool}`, memo, store },
          };
    const record = this.#record;
    if (record) {
      const carried = this.#carried?.builds;
      keying.kustomize.reads = { record: record.builds, carried };
      const unavailable = record.unavailable;
      if (keying.release) keying.release.reads = { record: record.releases, carried, unavailable };
    }
    this.#keying = keying;
    return keying;
  }

  /**
   * Gives `cluster` the figures of what its builds took from the cache and the other
   * render, and keeps it whole when nothing outside its key shaped it.
   */
  async after(cluster: RenderedCluster, keep: KeepContext): Promise<void> {
    const store = this.#keying?.kustomize.store;
    const carried = this.#record && this.#carried?.builds.taken;
    if (store) cluster.cache = { ...store.stats, ...(carried ? { carried } : {}) };
    const remembered = this.#record?.unavailable ?? new Map();
    if (store === undefined || this.#wholeKey === undefined) return;
    if (!keepsWhole(cluster, keep, remembered)) return;
    const holds = holdsOf(cluster, remembered);
    if (holds === undefined) return;
    await writeCluster(store, this.#wholeKey, cluster);
    if (this.#record) await writeRenderReads(store, this.#wholeKey, this.#record);
    cluster.kept = { holds };
    await this.release();
  }

  /** Lets the next render of this commit go: it finds this one kept, if it was. */
  async release(): Promise<void> {
    await this.#hold?.release();
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
