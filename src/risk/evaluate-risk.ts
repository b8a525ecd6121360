/** Runs every rule family over every cluster and applies the repository policy. */
import type { ClusterDiff } from '../model/change.js';
import { toRef, type RenderedCluster } from '../model/render.js';
import { isIgnored, policyLevel } from './apply-policy.js';
import { riskContext } from './context.js';
import type { Policy } from '../policy/types.js';
import { FAMILIES, ruleById } from './registry.js';
import type { Draft } from './rule.js';
import { sortFindings } from './sort-findings.js';
import type { Finding } from '../model/finding.js';

export interface RiskInput {
  clusters: Array<{
    name: string;
    diff: ClusterDiff;
    base: RenderedCluster;
    head: RenderedCluster;
  }>;
  policy: Policy;
}

function toFinding(cluster: string, draft: Draft, policy: Policy): Finding | undefined {
  const level = policyLevel(policy, draft.rule, ruleById(draft.rule).level);
  if (!level) return undefined;
  const { resource, producer, file, line } = draft.subject;
  const finding: Finding = { rule: draft.rule, level, cluster, resource, message: draft.message };
  if (producer) finding.producer = toRef(producer);
  if (file) finding.file = file;
  if (file && line !== undefined) finding.line = line;
  return isIgnored(finding, policy.ignores) ? undefined : finding;
}

export function evaluateRisk(input: RiskInput): Finding[] {
  const findings = new Map<string, Finding>();
  for (const cluster of input.clusters) {
    const ctx = riskContext(cluster, input.policy);
    for (const family of FAMILIES) {
      for (const draft of family.check(ctx)) {
        const finding = toFinding(cluster.name, draft, input.policy);
        // The same object can be rendered twice (two producers); report it once.
        if (finding) findings.set(JSON.stringify(finding), finding);
      }
    }
  }
  return sortFindings([...findings.values()]);
}
