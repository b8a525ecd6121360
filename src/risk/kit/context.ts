/**
 * What a rule sees of one cluster: the diff, and both rendered revisions indexed by
 * object identity and producer, so rules read the raw manifests, never the redacted ones.
 */
import {
  type ClusterDiff,
  type ImageAnswers,
  type Manifest,
  type Producer,
  type ProducerRef,
  type RenderedCluster,
  type RenderedObject,
  type ResourceChange,
  type UnassessedProducer,
  objectId,
  producerKey,
  producerObjectId,
} from '../../model/index.js';
import type { Policy } from '../../policy/index.js';

export interface RevisionView {
  cluster: RenderedCluster;
  /** objectId -> every rendered object with that identity (usually one). */
  objects: Map<string, RenderedObject[]>;
  /** producerKey -> producer. */
  producers: Map<string, Producer>;
}

export interface RiskContext {
  cluster: string;
  diff: ClusterDiff;
  base: RevisionView;
  head: RevisionView;
  policy: Policy;
  /** producerKey -> the changed producers nothing could render (unassessedProducers). */
  unassessed: ReadonlyMap<string, UnassessedProducer>;
  /** What registries said about the images the PR brings in; empty unless the policy asks. */
  images: ImageAnswers;
}

export interface ClusterInput {
  name: string;
  diff: ClusterDiff;
  base: RenderedCluster;
  head: RenderedCluster;
}

function view(cluster: RenderedCluster): RevisionView {
  const objects = new Map<string, RenderedObject[]>();
  for (const object of cluster.objects) {
    const id = objectId(object.manifest);
    const list = objects.get(id);
    if (list) list.push(object);
    else objects.set(id, [object]);
  }
  const producers = new Map(cluster.producers.map((p) => [producerKey(p), p]));
  return { cluster, objects, producers };
}

export function riskContext(
  input: ClusterInput,
  policy: Policy,
  unassessed: readonly UnassessedProducer[] = [],
  images: ImageAnswers = new Map(),
): RiskContext {
  return {
    cluster: input.name,
    diff: input.diff,
    base: view(input.base),
    head: view(input.head),
    policy,
    unassessed: new Map(unassessed.map((u) => [producerKey(u.producer), u])),
    images,
  };
}

/** The raw object with this identity at one revision, preferring the one `producer` renders. */
export function findObject(
  side: RevisionView,
  id: string,
  producer?: ProducerRef,
): RenderedObject | undefined {
  const list = side.objects.get(id);
  if (!list) return undefined;
  // The diff keeps the last of duplicates; so do rules, unless the producer tells them apart.
  const key = producer ? producerKey(producer) : undefined;
  return list.findLast((o) => producerKey(o.producer) === key) ?? list.at(-1);
}

export interface RawPair {
  /** The raw manifest at base; undefined for an added object. */
  base: Manifest | undefined;
  /** The raw manifest at head; undefined for a removed object. */
  head: Manifest | undefined;
}

/**
 * The object a change starts from at base. The diff may pair objects of two names (a
 * kustomize generator's hash suffix changed): the base name is the one in `old`.
 */
export function baseObject(ctx: RiskContext, change: ResourceChange): RenderedObject | undefined {
  if (change.status === 'added') return undefined;
  const producer = change.previousProducer ?? change.producer;
  const oldId = change.old ? objectId(change.old) : change.id;
  const renamed = oldId !== change.id ? findObject(ctx.base, oldId, producer) : undefined;
  return renamed ?? findObject(ctx.base, change.id, producer);
}

/** The raw (unredacted) manifests behind a change, for rules to read. */
export function rawPair(ctx: RiskContext, change: ResourceChange): RawPair {
  const base = baseObject(ctx, change)?.manifest;
  const head =
    change.status === 'removed'
      ? undefined
      : findObject(ctx.head, change.id, change.producer)?.manifest;
  return { base, head };
}

/** The producer's own object, when the revision renders it (a parent applies it). */
export function producerObject(side: RevisionView, ref: ProducerRef): RenderedObject | undefined {
  return findObject(side, producerObjectId(ref));
}

export function producerManifest(side: RevisionView, ref: ProducerRef): Manifest | undefined {
  return producerObject(side, ref)?.manifest;
}

/** The producer as the cluster will run it after the merge, else as it ran before. */
export function currentProducer(ctx: RiskContext, ref: ProducerRef): Producer | undefined {
  const key = producerKey(ref);
  return ctx.head.producers.get(key) ?? ctx.base.producers.get(key);
}
