/** What the cluster does with an object that leaves the rendered output: delete it or leave it be. */
import {
  type ProducerRef,
  type ResourceChange,
  objectMeta,
  producerKey,
} from '../../model/index.js';
import { fromChartCrds } from './chart-crd.js';
import { baseObject, currentProducer, type RiskContext } from './context.js';

export const PRUNE_ANNOTATION = 'kustomize.toolkit.fluxcd.io/prune';
export const HELM_RESOURCE_POLICY = 'helm.sh/resource-policy';
/** flux-operator leaves an object a ResourceSet stops applying that carries it. */
const OPERATOR_PRUNE_ANNOTATION = 'fluxcd.controlplane.io/prune';

/**
 * `deleted.by` says who deletes it ("Kustomization flux-system/apps prunes it");
 * `orphaned.why` says why it stays ("Kustomization flux-system/apps has prune off").
 */
export type Fate = { kind: 'deleted'; by: string } | { kind: 'orphaned'; why: string };

/**
 * The fate of the object as `ref` lets go of it: the change's producer for a removal, the
 * previous one for an object that moves to another producer.
 */
export function removalFate(
  ctx: RiskContext,
  change: ResourceChange,
  ref: ProducerRef = change.producer,
): Fate {
  const before = baseObject(ctx, change);
  const annotations = before ? objectMeta(before.manifest).annotations : {};
  const name = `${ref.kind} ${ref.namespace}/${ref.name}`;
  if (ref.kind === 'HelmRelease') {
    if (annotations[HELM_RESOURCE_POLICY] === 'keep') {
      return { kind: 'orphaned', why: `it carries ${HELM_RESOURCE_POLICY}: keep` };
    }
    if (fromChartCrds({ ...change, producer: ref, file: before?.file })) {
      return { kind: 'orphaned', why: "helm does not delete CRDs from a chart's crds/ folder" };
    }
    const uninstalled = !ctx.head.producers.has(producerKey(ref));
    return {
      kind: 'deleted',
      by: `${name} ${uninstalled ? 'is uninstalled' : 'upgrades'} and helm deletes it`,
    };
  }
  if (ref.kind === 'ResourceSet' && annotations[OPERATOR_PRUNE_ANNOTATION] === 'disabled') {
    return { kind: 'orphaned', why: `it carries ${OPERATOR_PRUNE_ANNOTATION}: disabled` };
  }
  if (ref.kind !== 'ResourceSet' && annotations[PRUNE_ANNOTATION] === 'disabled') {
    return { kind: 'orphaned', why: `it carries ${PRUNE_ANNOTATION}: disabled` };
  }
  const producer = currentProducer(ctx, ref);
  if (producer && !producer.prune) return { kind: 'orphaned', why: `${name} has prune off` };
  return { kind: 'deleted', by: `${name} prunes it` };
}
