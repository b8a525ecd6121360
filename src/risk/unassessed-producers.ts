/**
 * Which producers the PR changes but nothing could judge, because they could not be
 * rendered for unavailability (isUnavailable) on one side or both. A producer counts as
 * changed when its own object (as its parent renders it) is in the diff, when it exists on
 * one side only, or when it fails on one side and renders on the other. A producer
 * unavailable on both sides whose object the PR leaves alone is not the PR's business; its
 * errors stay listed as they are.
 */
import {
  type ClusterDiff,
  type ProducerRef,
  type RenderError,
  type RenderedCluster,
  type UnassessedProducer,
  compareStrings,
  isUnavailable,
  producerKey,
  toRef,
} from '../model/index.js';

export interface UnassessedInput {
  diff: ClusterDiff;
  base: RenderedCluster;
  head: RenderedCluster;
}

const PRODUCER_GROUPS = {
  Kustomization: 'kustomize.toolkit.fluxcd.io',
  HelmRelease: 'helm.toolkit.fluxcd.io',
} as const;

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

export function unassessedProducers(input: UnassessedInput): UnassessedProducer[] {
  const { diff, base, head } = input;
  const atBase = unavailableBy(base);
  const atHead = unavailableBy(head);
  const exists = (c: RenderedCluster) => new Set(c.producers.map(producerKey));
  const failing = (c: RenderedCluster) => new Set(c.errors.map((e) => producerKey(e.producer)));
  const [inBase, inHead, failsAtBase, failsAtHead] = [
    exists(base),
    exists(head),
    failing(base),
    failing(head),
  ];
  const changedObjects = new Set(diff.changes.map((c) => c.id));
  const ownObjectChanged = (ref: ProducerRef) =>
    changedObjects.has(`${PRODUCER_GROUPS[ref.kind]}/${ref.kind}/${ref.namespace}/${ref.name}`);

  const out: UnassessedProducer[] = [];
  for (const key of new Set([...atBase.keys(), ...atHead.keys()])) {
    const baseErrors = atBase.get(key) ?? [];
    const headErrors = atHead.get(key) ?? [];
    const first = baseErrors[0] ?? headErrors[0];
    if (!first) continue;
    const ref = toRef(first.producer);
    const changed =
      inBase.has(key) !== inHead.has(key) ||
      failsAtBase.has(key) !== failsAtHead.has(key) ||
      ownObjectChanged(ref);
    if (!changed) continue;
    const side = baseErrors.length === 0 ? 'head' : headErrors.length === 0 ? 'base' : 'both';
    out.push({ producer: ref, side, reason: reasonOf([...baseErrors, ...headErrors]) });
  }
  return out.sort((a, b) => compareStrings(producerKey(a.producer), producerKey(b.producer)));
}
