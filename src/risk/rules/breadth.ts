/** Breadth: changes so wide that reviewing them object by object stops being realistic. */
import { plural } from '../../model/index.js';
import { CLUSTER_KIND, type Draft, type RiskContext, type RuleFamily } from '../kit/index.js';

export const WIDE_PRODUCERS = 10;
export const WIDE_OBJECTS = 60;

function check(ctx: RiskContext): Draft[] {
  const producers = ctx.diff.summary.producers.length;
  const objects = ctx.diff.changes.length;
  if (producers < WIDE_PRODUCERS && objects < WIDE_OBJECTS) return [];
  return [
    {
      rule: 'wide-change',
      subject: { resource: { kind: CLUSTER_KIND, name: ctx.cluster } },
      message: `Changes ${plural(objects, 'object')} across ${plural(producers, 'producer')} in cluster ${ctx.cluster} at once: a mistake here reaches much of the cluster in one reconcile.`,
    },
  ];
}

export const breadth: RuleFamily = {
  name: 'breadth',
  label: 'breadth',
  rules: [
    {
      id: 'wide-change',
      level: 'caution',
      description: `A cluster where ${WIDE_PRODUCERS} or more producers, or ${WIDE_OBJECTS} or more objects, change.`,
      headline: 'Changes much of {resource} at once',
    },
  ],
  check,
};
