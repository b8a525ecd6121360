/**
 * CRDs from a chart's crds/ folder that change: helm-controller applies crds/ itself with
 * the HelmRelease's upgrade.crds policy, whose default, Create, only creates missing ones
 * (internal/action/crds.go); only CreateReplace updates one that exists. Part of the flux
 * family.
 */
import {
  type Draft,
  type RiskContext,
  type RuleInfo,
  at,
  changeSubject,
  describe,
  fromChartCrds,
  producerManifest,
} from '../kit/index.js';

export const CHART_CRD_RULES: readonly RuleInfo[] = [
  {
    id: 'chart-crd-not-updated',
    level: 'caution',
    description:
      "A CRD in a chart's crds/ folder that changes while its HelmRelease upgrades with upgrade.crds Create (the default) or Skip: helm-controller leaves the CRD in the cluster as it is.",
    headline: 'Changes {resource}, which helm does not update',
  },
];

export function chartCrdChanges(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status !== 'changed' || !fromChartCrds(change)) continue;
    const ref = change.producer;
    const policy = at(producerManifest(ctx.head, ref), 'spec', 'upgrade', 'crds');
    if (policy === 'CreateReplace') continue;
    const subject = changeSubject(change);
    const setting =
      typeof policy === 'string' ? `upgrade.crds: ${policy}` : 'upgrade.crds: Create, the default';
    drafts.push({
      rule: 'chart-crd-not-updated',
      subject,
      message: `${describe(subject.resource)} changes in the chart's crds/ folder, but HelmRelease ${ref.namespace}/${ref.name} upgrades with ${setting}: helm does not update CRDs from crds/ on upgrade, so this change is not applied (upgrade.crds: CreateReplace would apply it).`,
    });
  }
  return drafts;
}
