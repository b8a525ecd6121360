/**
 * risk/ owns judging a change: rules over each cluster's diff and both rendered
 * revisions give findings, the repository policy adjusts them, a verdict sums them up, and
 * the gate decides pass or fail. It must not render, diff, read files or print a Secret value.
 */
export { evaluateRisk, type RiskInput } from './evaluate-risk.js';
export { computeVerdict } from './compute-verdict.js';
export { gate, type GateOutcome } from './gate.js';
export { RULE_IDS, RULES } from './registry.js';
export { imageQueries } from './rules/index.js';
export { sortChanges } from './sort-changes.js';
export { sortFindings } from './sort-findings.js';
export { unassessedProducers, type UnassessedInput } from './unassessed-producers.js';
