/**
 * risk/ owns judging a change: rules over each cluster's diff and both rendered
 * revisions give findings, the repository policy adjusts them, and a verdict sums them up.
 * It must not render, diff, read files or print a Secret value.
 */
export { evaluateRisk, type RiskInput } from './evaluate-risk.js';
export { computeVerdict } from './compute-verdict.js';
export { RULES, type RegisteredRule } from './registry.js';
export { sortFindings, compareFindings } from './sort-findings.js';
export * from '../model/finding.js';
export * from '../policy/types.js';
