/** Every rule fluxlens knows, by family; docs/rules.md documents this list in one table. */
import type { RuleFamily, RuleInfo } from './rule.js';
import { accessControl } from './rules/access-control.js';
import { availability } from './rules/availability.js';
import { breadth } from './rules/breadth.js';
import { dataLoss } from './rules/data-loss.js';
import { exposure } from './rules/exposure.js';
import { flux } from './rules/flux.js';
import { immutable } from './rules/immutable.js';
import { podPrivilege } from './rules/pod-privilege.js';
import { secrets } from './rules/secrets.js';
import { supplyChain } from './rules/supply-chain.js';

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

export function ruleById(id: string): RegisteredRule {
  const rule = BY_ID.get(id);
  if (!rule) throw new Error(`unregistered risk rule '${id}'`);
  return rule;
}
