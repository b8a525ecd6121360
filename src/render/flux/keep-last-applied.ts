/**
 * Flux semantics for producers that fail: what stays in the cluster when a Kustomization
 * cannot be built or a HelmRelease cannot be rendered.
 */
import { objectId, producerKey, type Producer, type RenderedCluster } from '../../model/index.js';

/**
 * The head cluster as Flux leaves it: a Kustomization that fails to build is neither
 * applied nor pruned, and helm-controller leaves a release it cannot render as it was, so
 * their objects stay as last applied, and so do the producers they defined at base (and
 * theirs). A producer not rendered at head (skipped) has objects nobody knows. Both keep
 * their objects from base: they pair as unchanged, not as removed.
 */
export function keepLastApplied(base: RenderedCluster, head: RenderedCluster): RenderedCluster {
  const atHead = new Set(head.producers.map(producerKey));
  const frozen = new Set(
    head.producers.filter((p) => p.error !== undefined || p.skipped !== undefined).map(producerKey),
  );
  if (frozen.size === 0) return head;
  const carried: Producer[] = [];
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of base.producers) {
      const key = producerKey(p);
      if (frozen.has(key) || atHead.has(key) || !('parent' in p.definedIn)) continue;
      if (!frozen.has(producerKey(p.definedIn.parent))) continue;
      frozen.add(key);
      carried.push(p);
      grew = true;
    }
  }
  const held = new Set(head.objects.map((o) => objectId(o.manifest)));
  const objects = base.objects.filter(
    (o) => frozen.has(producerKey(o.producer)) && !held.has(objectId(o.manifest)),
  );
  const carriedKeys = new Set(carried.map(producerKey));
  const errors = base.errors.filter((e) => carriedKeys.has(producerKey(e.producer)));
  if (objects.length === 0 && carried.length === 0) return head;
  return {
    ...head,
    producers: [...head.producers, ...carried],
    objects: [...head.objects, ...objects],
    errors: [...head.errors, ...errors],
  };
}
