/**
 * "Introduced only": a rule reports a property of an object only when the PR brings it
 * in. Rules describe an object's risky properties as facts with stable keys; a fact is
 * introduced when its key is present at head and absent at base for the same object.
 */
import type { Manifest, ResourceChange } from '../../model/index.js';
import { rawPair, type RiskContext } from './context.js';

/** One property of one object at one revision; the key matches it across revisions. */
export interface Fact {
  key: string;
}

/** The `after` facts whose key `before` lacks. */
export function introduced<F extends Fact>(before: readonly F[], after: readonly F[]): F[] {
  const seen = new Set(before.map((f) => f.key));
  const fresh = new Map<string, F>();
  for (const fact of after)
    if (!seen.has(fact.key) && !fresh.has(fact.key)) fresh.set(fact.key, fact);
  return [...fresh.values()];
}

/**
 * Facts of the object at head that it did not have at base (all of them for an added
 * object, none for a removed one). Reads the raw manifests of both revisions.
 */
export function introducedBy<F extends Fact>(
  ctx: RiskContext,
  change: ResourceChange,
  facts: (manifest: Manifest) => F[],
): F[] {
  const { base, head } = rawPair(ctx, change);
  if (!head) return [];
  return introduced(base ? facts(base) : [], facts(head));
}

/**
 * Facts the object had at base and no longer has at head, for an object on both sides:
 * a safeguard the PR takes away.
 */
export function droppedBy<F extends Fact>(
  ctx: RiskContext,
  change: ResourceChange,
  facts: (manifest: Manifest) => F[],
): F[] {
  const { base, head } = rawPair(ctx, change);
  if (!base || !head) return [];
  return introduced(facts(head), facts(base));
}
