/**
 * Breadth: changes so wide that reviewing them object by object stops being realistic.
 * Version moves (image tags and digests, chart versions; isVersionMove) do not count:
 * the reports list each move once in their image and chart tables, with every object or
 * release it reaches, and the supply-chain rules judge the move itself. Counting each copy
 * would turn every fleet-wide chart bump (one OCIRepository per app) into a caution and
 * leave no bot PR routine. For the same reason the same change in many objects
 * (sameChangeKeys, which the reports show once) does not count when it is benign: it
 * changes objects that already exist, restarts no pods and feeds no Flux object (a backup
 * retention set in every app's ReplicationSource). One that does is still wide (the same
 * values patch in 65 HelmReleases, an env var in every Deployment): a mistake in it
 * reaches all of them at once.
 */
import { isVersionMove } from '../../diff/index.js';
import {
  type Manifest,
  type ResourceChange,
  apiGroup,
  plural,
  producerKey,
  sameChangeKeys,
} from '../../model/index.js';
import {
  CLUSTER_KIND,
  type Draft,
  type RiskContext,
  type RuleFamily,
  at,
  deepEqual,
  isKind,
  manifestIs,
  podSpecs,
  rawPair,
} from '../kit/index.js';

export const WIDE_PRODUCERS = 10;
export const WIDE_OBJECTS = 60;

/** What a change to the object would roll pods out for: its pod templates, or pod specs. */
function podTemplates(manifest: Manifest | undefined): unknown[] {
  if (!manifest) return [];
  if (manifestIs(manifest, 'Pod')) return [at(manifest, 'spec')];
  if (manifestIs(manifest, 'CronJob')) return [at(manifest, 'spec', 'jobTemplate')];
  if (manifestIs(manifest, 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job')) {
    return [at(manifest, 'spec', 'template')];
  }
  return podSpecs(manifest).map((view) => view.spec);
}

/**
 * A change of an existing object that restarts no pods and feeds no Flux object. Never a
 * Secret: its diff is redacted, so two Secrets given different values look the same.
 */
function isBenign(ctx: RiskContext, change: ResourceChange): boolean {
  if (change.status !== 'changed' || isKind(change, 'Secret')) return false;
  if (apiGroup(change.apiVersion).endsWith('.toolkit.fluxcd.io')) return false;
  const { base, head } = rawPair(ctx, change);
  return deepEqual(podTemplates(base), podTemplates(head));
}

/** The changes that are one benign change made the same way in several objects. */
function uniformBenign(ctx: RiskContext, changes: readonly ResourceChange[]): Set<ResourceChange> {
  const keyOf = sameChangeKeys();
  const groups = new Map<string, ResourceChange[]>();
  for (const change of changes) {
    const key = keyOf(change);
    groups.set(key, [...(groups.get(key) ?? []), change]);
  }
  const out = new Set<ResourceChange>();
  for (const group of groups.values()) {
    if (group.length < 2 || !group.every((change) => isBenign(ctx, change))) continue;
    for (const change of group) out.add(change);
  }
  return out;
}

function check(ctx: RiskContext): Draft[] {
  const edits = ctx.diff.changes.filter((change) => !isVersionMove(change));
  const uniform = uniformBenign(ctx, edits);
  const counted = edits.filter((change) => !uniform.has(change));
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
      description: `A cluster where ${WIDE_PRODUCERS} or more producers, or ${WIDE_OBJECTS} or more objects, change, not counting version moves (image tags and digests, chart versions) nor one benign change made the same way in many objects.`,
      headline: 'Changes much of {resource} at once',
    },
  ],
  check,
};
