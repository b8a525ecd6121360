/**
 * Part of the flux family: a producer that reads a substituteFrom or valuesFrom ConfigMap
 * or Secret the repository does not create (an ExternalSecret or an operator creates it in
 * the cluster). The render takes it as present with unknown values (Producer.assumed), so
 * what depends on those values is shown with markers; the reviewer should know. Reported
 * once per producer, when the PR brings the dependency in.
 */
import { producerKey } from '../../model/index.js';
import {
  type Draft,
  type RiskContext,
  type RuleInfo,
  describe,
  introduced,
  producerSubject,
} from '../kit/index.js';

export const IN_CLUSTER_SOURCE_RULES: readonly RuleInfo[] = [
  {
    id: 'source-in-cluster-only',
    level: 'info',
    description:
      'A Kustomization or HelmRelease that starts reading a substituteFrom or valuesFrom ConfigMap or Secret the repository does not create: it renders with those values unknown.',
    headline: '{resource} reads values only the cluster holds',
  },
];

const facts = (assumed: readonly string[] | undefined) =>
  (assumed ?? []).map((text) => ({ key: text }));

export function inClusterSources(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const producer of ctx.head.producers.values()) {
    const base = ctx.base.producers.get(producerKey(producer));
    const fresh = introduced(facts(base?.assumed), facts(producer.assumed));
    if (fresh.length === 0) continue;
    const subject = producerSubject(ctx, producer);
    const what = fresh.map((f) => f.key).join('; ');
    drafts.push({
      rule: 'source-in-cluster-only',
      subject,
      message: `${describe(subject.resource)} reads values that only the cluster holds (an ExternalSecret or an operator creates their source there) and is rendered with them unknown: ${what}.`,
    });
  }
  return drafts;
}
