/**
 * The one pass/fail decision of a review: the CLI's exit code and the check run's
 * conclusion both come from here, so a policy that relevels a rule or sets `failOn: never`
 * moves both the same way.
 */
import { levelRank, type FailOn, type Finding, type LevelOrNone } from '../model/index.js';

export interface GateOutcome {
  /** A finding reaches `failOn`. */
  failed: boolean;
  /** The highest finding level, `none` without findings. */
  highest: LevelOrNone;
}

export function gate(findings: readonly Finding[], failOn: FailOn): GateOutcome {
  const highest = findings.reduce<LevelOrNone>(
    (max, f) => (levelRank(f.level) > levelRank(max) ? f.level : max),
    'none',
  );
  const failed = failOn !== 'never' && levelRank(highest) >= levelRank(failOn);
  return { failed, highest };
}
