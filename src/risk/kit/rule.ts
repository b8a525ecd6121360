/** The shape of a rule family: its registry entries and one check over a cluster. */
import type { RiskContext } from './context.js';
import type { Subject } from './subject.js';
import type { Level } from '../../model/index.js';

export interface RuleInfo {
  /** Stable kebab-case id; once shipped it never changes meaning. */
  id: string;
  level: Level;
  /** One line for docs/rules.md. */
  description: string;
  /** Verdict headline when this rule's finding leads; `{resource}` names the resource. */
  headline: string;
}

/** A finding before the engine adds the cluster and the level the policy gives it. */
export interface Draft {
  rule: string;
  subject: Subject;
  message: string;
  /** Finding.basis: set when the rule read a HelmRelease's values instead of its render. */
  basis?: 'values';
}

export interface RuleFamily {
  /** kebab-case family name, as docs/rules.md shows it. */
  name: string;
  /** What the family is about, in the verdict headline's parentheses. */
  label: string;
  rules: readonly RuleInfo[];
  check(ctx: RiskContext): Draft[];
}
