/** Every rule fluxlens knows, by family; docs/rules.md documents this list in one table. */
import type { RuleFamily, RuleInfo } from './kit/index.js';
import {
  accessControl,
  availability,
  breadth,
  dataLoss,
  exposure,
  flux,
  immutable,
  podPrivilege,
  secrets,
  supplyChain,
} from './rules/index.js';

export const FAMILIES: readonly RuleFamily[] = [
  dataLoss,
  immutable,
  podPrivilege,
  accessControl,
  exposure,
  availability,
  flux,
  supplyChain,
  secrets,
  breadth,
];

export interface RegisteredRule extends RuleInfo {
  family: string;
  /** The family's words for the verdict headline, e.g. "data loss". */
  label: string;
}

export const RULES: readonly RegisteredRule[] = FAMILIES.flatMap((family) =>
  family.rules.map((rule) => ({ ...rule, family: family.name, label: family.label })),
);

const BY_ID = new Map(RULES.map((rule) => [rule.id, rule]));

/** Every registered rule id, for the policy parser to check names against. */
export const RULE_IDS: ReadonlySet<string> = new Set(BY_ID.keys());

export function ruleById(id: string): RegisteredRule {
  const rule = BY_ID.get(id);
  if (!rule) throw new Error(`unregistered risk rule '${id}'`);
  return rule;
}
