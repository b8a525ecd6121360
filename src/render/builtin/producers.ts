/**
 * The set of producers being rendered (Kustomizations and HelmReleases) and the rules
 * that tie them together: which to build next, how a parent's output defines its
 * children, duplicates and cycles. Build mechanics live in build-producer.ts.
 */
import { posix } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { buildProducer, type ProducerBuildDeps } from './build-producer.js';
import { dropProducer, objectIndexKey } from './drop-producer.js';
import { inputsReady } from './inputs-ready.js';
import { instanceSyncsOf, unrenderedInstanceNote } from './instance-syncs.js';
import {
  type Discovery,
  dependsOnCycles,
  type FoundObject,
  isFluxKustomization,
  isHelmRelease,
  normalizeFluxPath,
  refOf,
  appliedTwiceErrors,
  isResourceSet,
  resourceSetFacts,
} from '../flux/index.js';
import {
  type Manifest,
  type Producer,
  type ProducerRef,
  type RenderError,
  type RenderErrorTags,
  type RenderedCluster,
  type RenderedObject,
  type SecretDerived,
  objectMeta,
  producerKey,
} from '../../model/index.js';
import type { RenderProgress } from '../engine.js';

type Status = 'pending' | 'rendering' | 'done' | 'failed' | 'skipped';

export interface Entry {
  key: string;
  ref: ProducerRef;
  manifest: Manifest;
  /** Where the definition holds text derived from a Secret (its parent substituted it). */
  secret?: SecretDerived | undefined;
  origin: { file: string; line: number } | { parent: string };
  status: Status;
  /** Set when a parent redefined this entry while it was rendering. */
  stale: boolean;
  objects: RenderedObject[];
  error?: { message: string; file?: string } & RenderErrorTags;
  skipped?: string;
  /** What its last render assumed of sources only the cluster holds (Producer.assumed). */
  assumed?: string[];
  /** The digest of what its last render read (Producer.inputKey). */
  inputKey?: string;
  path: string;
  source: string;
}

const DEFAULT_NAMESPACE = 'default';

/**
 * Objects one producer may render. kustomize itself needs minutes for a few thousand (its
 * time grows faster than the square of the count), no chart in use renders a tenth of
 * this, and every object costs the diff and the report on both sides of a review.
 */
export const MAX_PRODUCER_OBJECTS = 10_000;

/** Objects that Flux controllers (and flux-operator) act on once applied, and so become producers. */
function producesObjects(manifest: Manifest, helm: boolean): boolean {
  return (
    isFluxKustomization(manifest) || isResourceSet(manifest) || (helm && isHelmRelease(manifest))
  );
}

/** A HelmRelease's "path": the chart it installs, a chart path normalised like spec.path. */
function chartName(spec: Record<string, unknown>): string {
  const chart = (spec['chart'] ?? {}) as { spec?: { chart?: unknown } };
  const chartRef = (spec['chartRef'] ?? {}) as { kind?: unknown; name?: unknown };
  if (typeof chart.spec?.chart === 'string') return normalizeFluxPath(chart.spec.chart);
  return typeof chartRef.name === 'string' ? `${String(chartRef.kind)}/${chartRef.name}` : '';
}

function sourceKey(manifest: Manifest): string {
  const meta = objectMeta(manifest);
  return `${meta.kind}/${meta.namespace ?? ''}/${meta.name}`;
}

function keyName(key: string): string {
  return key.replace(/^(Kustomization|HelmRelease|ResourceSet)\//, '');
}

/** Whether two definitions say the same: their specs, key order aside. */
function sameSpec(a: Manifest, b: Manifest): boolean {
  return isDeepStrictEqual(a['spec'] ?? null, b['spec'] ?? null);
}

export class Producers {
  readonly #entries = new Map<string, Entry>();
  readonly #errors: RenderError[] = [];
  readonly #objectIndex = new Map<string, RenderedObject>();
  /** Sources written in files, then the ones flux-operator creates for a rendered FluxInstance. */
  readonly #sources = new Map<string, Manifest>();
  /** Kustomizations flux-operator creates for a rendered FluxInstance (adoptInstanceSyncs). */
  readonly #instanceSyncs = new Set<string>();
  readonly #entry: string;

  constructor(
    found: Discovery,
    private readonly helm: boolean,
  ) {
    this.#entry = found.entry;
    for (const { manifest } of found.sources) this.#sources.set(sourceKey(manifest), manifest);
    const defined = helm ? [...found.kustomizations, ...found.helmReleases] : found.kustomizations;
    const byFile = [...defined].sort((a, b) =>
      a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line,
    );
    for (const item of byFile) this.addFromFile(item);
  }

  private addFromFile(item: FoundObject): void {
    const ref = refOf(item.manifest, DEFAULT_NAMESPACE);
    const key = producerKey(ref);
    const existing = this.#entries.get(key);
    if (existing) {
      if (!sameSpec(existing.manifest, item.manifest) && 'file' in existing.origin) {
        this.#errors.push({
          producer: ref,
          file: item.file,
          message: `duplicate ${ref.kind} ${ref.namespace}/${ref.name}: also defined in ${existing.origin.file}`,
        });
      }
      return;
    }
    this.#entries.set(
      key,
      this.newEntry(key, ref, item.manifest, { file: item.file, line: item.line }),
    );
  }

  private newEntry(
    key: string,
    ref: ProducerRef,
    manifest: Manifest,
    origin: Entry['origin'],
  ): Entry {
    const spec = (manifest['spec'] ?? {}) as Record<string, unknown>;
    return {
      key,
      ref,
      manifest,
      origin,
      status: 'pending',
      stale: false,
      objects: [],
      // A ResourceSet reads no folder: no path, so it is no parent of any file.
      path:
        ref.kind === 'HelmRelease'
          ? chartName(spec)
          : ref.kind === 'ResourceSet'
            ? ''
            : normalizeFluxPath(typeof spec['path'] === 'string' ? spec['path'] : undefined),
      source: '',
    };
  }

  /** The Kustomizations to build next: none waits on a parent or an input still to come. */
  nextRound(): Entry[] {
    const pending = [...this.#entries.values()].filter((e) => e.status === 'pending');
    if (pending.length === 0) return [];
    const orphans = pending.filter((e) => !this.mayHaveParent(e, pending));
    const ready = orphans.filter((e) => inputsReady(e.ref, e.manifest, this));
    if (ready.length > 0) return ready;
    return orphans.length > 0 ? orphans : pending;
  }

  /** A file-defined Kustomization waits while a pending one's path covers its file. */
  private mayHaveParent(entry: Entry, pending: readonly Entry[]): boolean {
    if (!('file' in entry.origin) || this.#instanceSyncs.has(entry.key)) return false;
    const dir = posix.dirname(entry.origin.file);
    return pending.some(
      (p) => p !== entry && (p.path === '.' || dir === p.path || dir.startsWith(`${p.path}/`)),
    );
  }

  clusterObject(kind: string, namespace: string, name: string): Manifest | undefined {
    return this.clusterRendered(kind, namespace, name)?.manifest;
  }

  /** The objects of `kind` in `namespace`: rendered, else written in a file. */
  objectsOfKind(kind: string, namespace: string): Manifest[] {
    const prefix = `${kind}/${namespace}/`;
    const found = new Map<string, Manifest>();
    for (const [key, m] of this.#sources) if (key.startsWith(prefix)) found.set(key, m);
    for (const [key, o] of this.#objectIndex)
      if (key.startsWith(prefix)) found.set(key, o.manifest);
    return [...found.values()];
  }

  /** Whether a Kustomization of the render applies the folder `path` of a source. */
  private applies(path: string): boolean {
    return [...this.#entries.values()].some(
      (e) => e.ref.kind === 'Kustomization' && e.path === path,
    );
  }

  /** A source of the cluster: rendered, written in a file, or created for a FluxInstance. */
  source(kind: string, namespace: string, name: string): Manifest | undefined {
    const key = `${kind}/${namespace}/${name}`;
    return this.clusterObject(kind, namespace, name) ?? this.#sources.get(key);
  }

  /** The rendered object, with what in it derives from a Secret. */
  clusterRendered(kind: string, namespace: string, name: string): RenderedObject | undefined {
    return this.#objectIndex.get(`${kind}/${namespace}/${name}`);
  }

  progress(): RenderProgress {
    const all = [...this.#entries.values()];
    return {
      done: all.filter((e) => e.status !== 'pending' && e.status !== 'rendering').length,
      total: all.length,
    };
  }

  async render(entry: Entry, deps: ProducerBuildDeps): Promise<void> {
    // A parent's output may supersede an entry of the round before its turn (dropProducer).
    if (this.#entries.get(entry.key) !== entry) return;
    entry.status = 'rendering';
    const outcome = await buildProducer(
      {
        ref: entry.ref,
        manifest: entry.manifest,
        secret: entry.secret,
        path: entry.path,
        file: this.definitionFile(entry),
      },
      deps,
    );
    // Superseded while it rendered: the parent's version stands, this outcome is nobody's.
    if (this.#entries.get(entry.key) !== entry) return;
    entry.source = outcome.source;
    delete entry.assumed;
    delete entry.inputKey;
    if ('inputKey' in outcome && outcome.inputKey !== undefined) entry.inputKey = outcome.inputKey;
    if (entry.stale) {
      entry.stale = false;
      entry.status = 'pending';
      return;
    }
    if ('skipped' in outcome) {
      entry.status = 'skipped';
      entry.skipped = outcome.skipped;
    } else if ('error' in outcome) {
      entry.status = 'failed';
      const { error, file, code, offline } = outcome;
      const note =
        entry.ref.kind === 'HelmRelease' && code === 'chart-unavailable'
          ? unrenderedInstanceNote(
              entry.manifest,
              (k, ns, n) => this.source(k, ns, n),
              (path) => this.applies(path),
            )
          : undefined;
      entry.error = {
        message: note === undefined ? error : `${error}; ${note}`,
        ...(file ? { file } : {}),
        ...(code !== undefined ? { code } : {}),
        ...(offline !== undefined ? { offline } : {}),
      };
    } else if (outcome.objects.length > MAX_PRODUCER_OBJECTS) {
      // Before its objects reach the cluster: none of them, nor any producer among them.
      entry.status = 'failed';
      const file = this.definitionFile(entry);
      entry.error = {
        message: `rendered ${outcome.objects.length} objects, more than the ${MAX_PRODUCER_OBJECTS} fluxlens reviews of one producer`,
        ...(file ? { file } : {}),
      };
    } else {
      entry.status = 'done';
      entry.objects = outcome.objects;
      if (outcome.assumed) entry.assumed = outcome.assumed;
      for (const o of outcome.objects)
        this.#objectIndex.set(objectIndexKey(o, entry.ref.namespace), o);
      this.absorbChildren(entry);
      this.adoptInstanceSyncs(entry);
    }
  }

  /**
   * The source and Kustomization flux-operator creates for a FluxInstance among `entry`'s
   * objects, defined as if written where the instance was (its file; a chart's: the
   * release's, whose values gave the sync),
   * as withInstanceSyncs defines an instance file's: the Kustomization then applying its
   * renderer again is bootstrap's self-apply, not a cycle. What exists already stays.
   */
  private adoptInstanceSyncs(entry: Entry): void {
    for (const { sync, object } of instanceSyncsOf(entry.objects, this.#entry)) {
      const sourceId = sourceKey(sync.source);
      if (!this.#sources.has(sourceId)) this.#sources.set(sourceId, sync.source);
      const ref = refOf(sync.kustomization, DEFAULT_NAMESPACE);
      const key = producerKey(ref);
      const origin =
        object.file !== undefined && entry.ref.kind !== 'HelmRelease'
          ? { file: object.file, line: object.line ?? 1 }
          : 'file' in entry.origin
            ? entry.origin
            : { file: this.definitionFile(entry) ?? '', line: 1 };
      const existing = this.#entries.get(key);
      if (existing === undefined) {
        this.#entries.set(key, this.newEntry(key, ref, sync.kustomization, origin));
        this.#instanceSyncs.add(key);
      } else if (isAssumedBootstrap(existing) && existing.path === sync.path) {
        // The Kustomization assumed by bootstrap's convention (withEntrySync) is this sync:
        // the instance defines it, so it is no longer an assumption.
        existing.origin = origin;
        this.#instanceSyncs.add(key);
      }
    }
  }

  private definitionFile(entry: Entry): string | undefined {
    if ('file' in entry.origin) return entry.origin.file;
    const parent = this.#entries.get(entry.origin.parent);
    return parent?.objects.find((o) => o.manifest === entry.manifest)?.file;
  }

  /** Nested producers are defined by their parent's output, not by their file. */
  private absorbChildren(parent: Entry): void {
    for (const object of parent.objects) {
      if (!producesObjects(object.manifest, this.helm)) continue;
      const ref = refOf(object.manifest, parent.ref.namespace);
      const key = producerKey(ref);
      if (key === parent.key) continue;
      const chain = this.ancestors(parent);
      if (chain.includes(key)) {
        const names = [...chain.reverse(), key].map(keyName);
        this.#errors.push({
          producer: parent.ref,
          message: `${ref.kind} cycle: ${names.join(' -> ')}`,
        });
        continue;
      }
      this.supersedeFileEntry(object, key);
      this.adopt(parent, key, ref, object);
    }
  }

  /**
   * A Kustomization file inside the parent's build is the parent's object, also when the
   * parent moved it (targetNamespace): the file's own entry, under its unmoved key, goes,
   * with all its render defined, whether that render is to come, running or done.
   */
  private supersedeFileEntry(object: RenderedObject, key: string): void {
    if (object.file === undefined) return;
    const name = objectMeta(object.manifest).name;
    const superseded = [...this.#entries.values()].filter(
      (e) =>
        e.key !== key && 'file' in e.origin && e.origin.file === object.file && e.ref.name === name,
    );
    for (const e of superseded) dropProducer(this.#entries, this.#objectIndex, e);
  }

  private adopt(parent: Entry, key: string, ref: ProducerRef, object: RenderedObject): void {
    const { manifest, secret } = object;
    const existing = this.#entries.get(key);
    if (!existing) {
      const entry = this.newEntry(key, ref, manifest, { parent: parent.key });
      this.#entries.set(key, Object.assign(entry, { secret }));
      return;
    }
    if ('parent' in existing.origin && existing.origin.parent !== parent.key) {
      const other = keyName(existing.origin.parent);
      this.#errors.push({
        producer: parent.ref,
        message: `duplicate producer: ${ref.kind} ${ref.namespace}/${ref.name} is also applied by ${other}`,
      });
      return;
    }
    const changed = !sameSpec(existing.manifest, manifest);
    const redo = this.newEntry(key, ref, manifest, { parent: parent.key });
    if (!changed) {
      existing.origin = redo.origin;
      existing.manifest = manifest;
      existing.secret = secret;
      return;
    }
    if (existing.status === 'rendering') existing.stale = true;
    else existing.status = 'pending';
    Object.assign(existing, {
      manifest,
      secret,
      origin: redo.origin,
      path: redo.path,
      objects: [],
    });
    delete existing.error;
    delete existing.skipped;
  }

  private ancestors(entry: Entry): string[] {
    const chain = [entry.key];
    let current = entry;
    while ('parent' in current.origin) {
      const parent = this.#entries.get(current.origin.parent);
      if (!parent || chain.includes(parent.key)) break;
      chain.push(parent.key);
      current = parent;
    }
    return chain;
  }

  /** Every producer's definition as its render used it (a parent's substitution applied). */
  definitions(): Array<{ ref: ProducerRef; manifest: Manifest }> {
    return [...this.#entries.values()].map((e) => ({ ref: e.ref, manifest: e.manifest }));
  }

  result(tools: Record<string, string>): RenderedCluster {
    const entries = [...this.#entries.values()].sort((a, b) =>
      a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
    );
    const producers: Producer[] = entries.map((e) => this.describe(e));
    const errors: RenderError[] = [...this.#errors];
    for (const e of entries) {
      if (e.error) errors.push({ producer: e.ref, ...e.error });
    }
    const objects = entries.flatMap((e) => e.objects);
    errors.push(...dependsOnCycles(producers, objects));
    // Producers themselves are left out: one that two parents apply is a duplicate (adopt).
    errors.push(...appliedTwiceErrors(objects, (m) => producesObjects(m, this.helm)));
    return { producers, objects, errors, tools };
  }

  private describe(e: Entry): Producer {
    const spec = (e.manifest['spec'] ?? {}) as Record<string, unknown>;
    const dependsOn = Array.isArray(spec['dependsOn'])
      ? (spec['dependsOn'] as Record<string, unknown>[])
      : [];
    const parent = 'parent' in e.origin ? this.#entries.get(e.origin.parent) : undefined;
    const operator = e.ref.kind === 'ResourceSet' ? resourceSetFacts(e.manifest) : undefined;
    const producer: Producer = {
      ...e.ref,
      path: e.path,
      source: e.source,
      suspend: operator?.suspend ?? spec['suspend'] === true,
      prune: operator?.prune ?? spec['prune'] === true,
      dependsOn: dependsOn
        // A ResourceSet may depend on any object; only other ResourceSets are producers.
        .filter((d) => typeof d['name'] === 'string' && (!operator || d['kind'] === 'ResourceSet'))
        .map((d) => ({
          kind: e.ref.kind,
          namespace: typeof d['namespace'] === 'string' ? d['namespace'] : e.ref.namespace,
          name: d['name'] as string,
        })),
      definedIn: parent
        ? { parent: parent.ref }
        : 'file' in e.origin
          ? { file: e.origin.file, line: e.origin.line }
          : { file: '' },
    };
    if (e.error) producer.error = e.error.message;
    if (e.skipped !== undefined) producer.skipped = e.skipped;
    if (e.assumed !== undefined) producer.assumed = e.assumed;
    if (e.inputKey !== undefined) producer.inputKey = e.inputKey;
    return producer;
  }
}

/** The Kustomization withEntrySync adds when nothing applies the entry: it has no file. */
function isAssumedBootstrap(entry: Entry): boolean {
  return 'file' in entry.origin && entry.origin.file === '';
}
