/** Runs every rule family over every cluster and applies the repository policy. */
import {
  type ClusterDiff,
  type Finding,
  type ImageAnswers,
  type RenderedCluster,
  toRef,
} from '../model/index.js';
import { isIgnored, policyLevel } from './apply-policy.js';
import { type Draft, riskContext } from './kit/index.js';
import type { Policy } from '../policy/index.js';
import { FAMILIES, ruleById } from './registry.js';
import { sortFindings } from './sort-findings.js';
import { unassessedProducers } from './unassessed-producers.js';

export interface RiskInput {
  clusters: Array<{
    name: string;
    diff: ClusterDiff;
    base: RenderedCluster;
    head: RenderedCluster;
  }>;
  policy: Policy;
  /**
   * The image check's answers (imageQueries says what to ask), when the policy asks for it:
   * the one input a review takes from outside the repository but for charts.
   */
  images?: ImageAnswers;
}

function toFinding(cluster: string, draft: Draft, policy: Policy): Finding | undefined {
  const level = policyLevel(policy, draft.rule, ruleById(draft.rule).level);
  if (!level) return undefined;
  const { resource, producer, file, line } = draft.subject;
  const finding: Finding = { rule: draft.rule, level, cluster, resource, message: draft.message };
  if (producer) finding.producer = toRef(producer);
  if (file) finding.file = file;
  if (file && line !== undefined) finding.line = line;
  if (draft.basis) finding.basis = draft.basis;
  return isIgnored(finding, policy.ignores) ? undefined : finding;
}

export function evaluateRisk(input: RiskInput): Finding[] {
  const findings = new Map<string, Finding>();
  for (const cluster of input.clusters) {
    const ctx = riskContext(cluster, input.policy, unassessedProducers(cluster), input.images);
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
