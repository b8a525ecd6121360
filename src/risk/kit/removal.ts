/** What the cluster does with an object that leaves the rendered output: delete it or leave it be. */
import { type ResourceChange, objectMeta, producerKey } from '../../model/index.js';
import { currentProducer, rawPair, type RiskContext } from './context.js';

export const PRUNE_ANNOTATION = 'kustomize.toolkit.fluxcd.io/prune';
export const HELM_RESOURCE_POLICY = 'helm.sh/resource-policy';

/**
 * `deleted.by` says who deletes it ("Kustomization flux-system/apps prunes it");
 * `orphaned.why` says why it stays ("Kustomization flux-system/apps has prune off").
 */
export type Fate = { kind: 'deleted'; by: string } | { kind: 'orphaned'; why: string };

export function removalFate(ctx: RiskContext, change: ResourceChange): Fate {
  const { base } = rawPair(ctx, change);
  const annotations = base ? objectMeta(base).annotations : {};
  const ref = change.producer;
  const name = `${ref.kind} ${ref.namespace}/${ref.name}`;
  if (ref.kind === 'HelmRelease') {
    if (annotations[HELM_RESOURCE_POLICY] === 'keep') {
      return { kind: 'orphaned', why: `it carries ${HELM_RESOURCE_POLICY}: keep` };
    }
    const uninstalled = !ctx.head.producers.has(producerKey(ref));
    return {
      kind: 'deleted',
      by: `${name} ${uninstalled ? 'is uninstalled' : 'upgrades'} and helm deletes it`,
    };
  }
  if (annotations[PRUNE_ANNOTATION] === 'disabled') {
    return { kind: 'orphaned', why: `it carries ${PRUNE_ANNOTATION}: disabled` };
  }
  const producer = currentProducer(ctx, ref);
  if (producer && !producer.prune) return { kind: 'orphaned', why: `${name} has prune off` };
  return { kind: 'deleted', by: `${name} prunes it` };
}
