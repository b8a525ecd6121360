/**
 * Breadth: changes so wide that reviewing them object by object stops being realistic.
 * Version moves (image tags and digests, chart versions; isVersionMove) do not count:
 * the reports list each move once in their image and chart tables, with every object or
 * release it reaches, and the supply-chain rules judge the move itself. Counting each copy
 * would turn every fleet-wide chart bump (one OCIRepository per app) into a caution and
 * leave no bot PR routine; a same-looking edit that is not a version move (a values patch
 * in 65 HelmReleases) still counts, since a mistake in it reaches all of them at once.
 */
import { isVersionMove } from '../../diff/index.js';
import { plural, producerKey } from '../../model/index.js';
import { CLUSTER_KIND, type Draft, type RiskContext, type RuleFamily } from '../kit/index.js';

export const WIDE_PRODUCERS = 10;
export const WIDE_OBJECTS = 60;

function check(ctx: RiskContext): Draft[] {
  const counted = ctx.diff.changes.filter((change) => !isVersionMove(change));
  const producers = new Set(
    counted.flatMap((c) =>
      (c.previousProducer ? [c.producer, c.previousProducer] : [c.producer]).map(producerKey),
    ),
  );
  const objects = counted.length;
  if (producers.size < WIDE_PRODUCERS && objects < WIDE_OBJECTS) return [];
  return [
    {
      rule: 'wide-change',
      subject: { resource: { kind: CLUSTER_KIND, name: ctx.cluster } },
      message: `Changes ${plural(objects, 'object')} across ${plural(producers.size, 'producer')} in cluster ${ctx.cluster} at once: a mistake here reaches much of the cluster in one reconcile.`,
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
      description: `A cluster where ${WIDE_PRODUCERS} or more producers, or ${WIDE_OBJECTS} or more objects, change, not counting version moves (image tags and digests, chart versions).`,
      headline: 'Changes much of {resource} at once',
    },
  ],
  check,
};
