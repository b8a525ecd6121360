/**
 * Which producers the PR changes but nothing could judge: they could not be rendered for
 * unavailability (isUnavailable), or were not rendered at all (skipped: a source that is
 * not mapped, a flux-local run that stopped), on one side or both. A producer counts as
 * changed when its own object (as its parent renders it) or a source it reads from (an
 * OCIRepository whose tag moves) is in the diff, when what its render reads differs (its
 * input keys: a shared component, a values file), when it exists on one side only, or when
 * it fails or is skipped on one side only. One left out on both sides whose object the PR leaves
 * alone is not the PR's business (its errors stay listed), unless its source is not found
 * at all: then what it reads is unknown, and so is whether the PR changes it.
 */
import {
  type ClusterDiff,
  type Producer,
  type ProducerRef,
  type RenderError,
  type RenderedCluster,
  type UnassessedProducer,
  compareStrings,
  isUnavailable,
  producerKey,
  producerObjectId,
  toRef,
} from '../model/index.js';
import { producerSources } from './producer-sources.js';

export interface UnassessedInput {
  diff: ClusterDiff;
  base: RenderedCluster;
  head: RenderedCluster;
}

function unavailableBy(cluster: RenderedCluster): Map<string, RenderError[]> {
  const byKey = new Map<string, RenderError[]>();
  for (const error of cluster.errors.filter(isUnavailable)) {
    const key = producerKey(error.producer);
    byKey.set(key, [...(byKey.get(key) ?? []), error]);
  }
  return byKey;
}

/** An offline cache miss alone says less than "unavailable": Flux would just fetch it. */
function reasonOf(errors: readonly RenderError[]): string {
  return errors.every((e) => e.offline === true)
    ? 'chart not in the offline cache'
    : 'chart unavailable';
}

/**
 * Why a producer was not rendered at all, in a few words for the headline; the producer's
 * own `skipped` text (in the JSON) has the detail.
 */
function skipReason(skipped: string): string {
  // A ResourceSet's reason is already a clause: what it uses that fluxlens cannot have.
  if (
    /which fluxlens does not (evaluate|fetch|expand)|is not in the rendered cluster$/.test(skipped)
  )
    return skipped;
  const generated =
    /^(ExternalArtifact \S+ from ArtifactGenerator \S+)(?: \((sources outside the repository)|.* uses (.*), which)/.exec(
      skipped,
    );
  if (generated) return `${generated[1]} (${generated[2] ?? `uses ${generated[3] ?? ''}`})`;
  if (/not mapped|without a mapping/.test(skipped)) return 'source not mapped (--source)';
  if (/was not found/.test(skipped)) return 'source not found';
  if (/flux-local/.test(skipped)) return 'not rendered by flux-local';
  return 'not rendered';
}

/**
 * A producer whose source is in neither revision (an OCIRepository a bootstrap pushes the
 * repository to, a GitRepository created outside it) may read any file of the PR: nothing
 * says the PR leaves it alone, so it is never left out.
 */
function sourceUnknown(producer: Producer): boolean {
  return /was not found/.test(producer.skipped ?? '');
}

function skippedBy(cluster: RenderedCluster): Map<string, Producer> {
  return new Map(
    cluster.producers.filter((p) => p.skipped !== undefined).map((p) => [producerKey(p), p]),
  );
}

/**
 * Whether a producer read something else at head than at base: both renders keyed it and
 * the keys differ. Unkeyed on either side (a chart never fetched) says nothing.
 */
function inputsChanged(base: RenderedCluster, head: RenderedCluster): (key: string) => boolean {
  const keysOf = (c: RenderedCluster) =>
    new Map(c.producers.map((p) => [producerKey(p), p.inputKey] as const));
  const [atBase, atHead] = [keysOf(base), keysOf(head)];
  return (key) => {
    const [before, after] = [atBase.get(key), atHead.get(key)];
    return before !== undefined && after !== undefined && before !== after;
  };
}

export function unassessedProducers(input: UnassessedInput): UnassessedProducer[] {
  const { diff, base, head } = input;
  const atBase = unavailableBy(base);
  const atHead = unavailableBy(head);
  const skippedAtBase = skippedBy(base);
  const skippedAtHead = skippedBy(head);
  const exists = (c: RenderedCluster) => new Set(c.producers.map(producerKey));
  const failing = (c: RenderedCluster) => new Set(c.errors.map((e) => producerKey(e.producer)));
  const [inBase, inHead, failsAtBase, failsAtHead] = [
    exists(base),
    exists(head),
    failing(base),
    failing(head),
  ];
  const changedObjects = new Set(diff.changes.map((c) => c.id));
  const ownObjectChanged = (ref: ProducerRef) => changedObjects.has(producerObjectId(ref));
  const sourcesOf = producerSources(base, head);
  const readsChanged = inputsChanged(base, head);
  const changedByPr = (key: string, ref: ProducerRef) =>
    ownObjectChanged(ref) ||
    sourcesOf(ref).some((id) => changedObjects.has(id)) ||
    readsChanged(key);
  const changed = (key: string, ref: ProducerRef) =>
    inBase.has(key) !== inHead.has(key) ||
    failsAtBase.has(key) !== failsAtHead.has(key) ||
    skippedAtBase.has(key) !== skippedAtHead.has(key) ||
    changedByPr(key, ref);
  const sideOf = (atBase: boolean, atHead: boolean) =>
    atBase && atHead ? 'both' : atBase ? 'base' : 'head';

  const out = new Map<string, UnassessedProducer>();
  for (const key of new Set([...atBase.keys(), ...atHead.keys()])) {
    const baseErrors = atBase.get(key) ?? [];
    const headErrors = atHead.get(key) ?? [];
    const first = baseErrors[0] ?? headErrors[0];
    if (!first) continue;
    const ref = toRef(first.producer);
    if (!changed(key, ref)) continue;
    out.set(key, {
      producer: ref,
      side: sideOf(baseErrors.length > 0, headErrors.length > 0),
      reason: reasonOf([...baseErrors, ...headErrors]),
    });
  }
  for (const key of new Set([...skippedAtBase.keys(), ...skippedAtHead.keys()])) {
    const producer = skippedAtHead.get(key) ?? skippedAtBase.get(key);
    if (!producer || out.has(key)) continue;
    if (!changed(key, producer) && !sourceUnknown(producer)) continue;
    out.set(key, {
      producer: toRef(producer),
      side: sideOf(skippedAtBase.has(key), skippedAtHead.has(key)),
      reason: skipReason(producer.skipped ?? ''),
    });
  }
  // Broken at both revisions (a content error the PR did not introduce), yet changed by it:
  // what the change does there is as unknown as behind an unreachable chart.
  for (const error of head.errors) {
    const key = producerKey(error.producer);
    const ref = toRef(error.producer);
    if (out.has(key) || !failsAtBase.has(key) || !inBase.has(key) || !inHead.has(key)) continue;
    if (!changedByPr(key, ref)) continue;
    out.set(key, { producer: ref, side: 'both', reason: 'render error' });
  }
  return [...out.values()].sort((a, b) =>
    compareStrings(producerKey(a.producer), producerKey(b.producer)),
  );
}
