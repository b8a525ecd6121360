/**
 * Data loss: objects whose deletion destroys data, whole producers going away, and
 * volume claims asked to shrink.
 */
import {
  objectMeta,
  plural,
  producerKey,
  type Manifest,
  type Producer,
} from '../../model/index.js';
import {
  type Draft,
  type KnownKind,
  PRUNE_ANNOTATION,
  type RiskContext,
  type RuleFamily,
  at,
  changeSubject,
  describe,
  isKind,
  parseQuantity,
  producerObject,
  producerSubject,
  rawPair,
  removalFate,
  strAt,
} from '../kit/index.js';

/** What goes with each stateful kind when it is deleted. */
const CONSEQUENCE: Partial<Record<KnownKind, (base: Manifest | undefined) => string>> = {
  PersistentVolumeClaim: () =>
    'the claim is released and, unless its volume is retained, the data on it is destroyed',
  PersistentVolume: (base) =>
    strAt(base, 'spec', 'persistentVolumeReclaimPolicy') === 'Delete'
      ? 'its reclaim policy is Delete, so the storage behind it is destroyed'
      : 'the storage behind it is cut off from the cluster',
  StatefulSet: (base) =>
    strAt(base, 'spec', 'persistentVolumeClaimRetentionPolicy', 'whenDeleted') === 'Delete'
      ? 'its pods stop and its volume claims are deleted with it (whenDeleted: Delete)'
      : 'its pods stop; its volume claims stay behind without a workload',
  Namespace: () =>
    'every object in it goes too, including volume claims and anything created outside Git',
  CustomResourceDefinition: () => 'every custom resource of that type in the cluster goes with it',
};

/** Kinds whose removal this family reports one by one. */
export const STATEFUL = Object.keys(CONSEQUENCE) as KnownKind[];

function statefulRemovals(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status !== 'removed' || !isKind(change, ...STATEFUL)) continue;
    const subject = changeSubject(change);
    const fate = removalFate(ctx, change);
    const what = describe(subject.resource);
    if (fate.kind === 'deleted') {
      const consequence = CONSEQUENCE[change.kind as KnownKind]?.(rawPair(ctx, change).base) ?? '';
      drafts.push({
        rule: 'stateful-data-deleted',
        subject,
        message: `${what} is deleted: ${fate.by}; ${consequence}.`,
      });
    } else {
      drafts.push({
        rule: 'stateful-data-orphaned',
        subject,
        message: `${what} is orphaned: ${fate.why}, so it stays in the cluster with nothing managing it.`,
      });
    }
  }
  return drafts;
}

/** Whether the producer's own object stays in the cluster when it leaves Git. */
function orphanedBy(ctx: RiskContext, producer: Producer): string | undefined {
  if ('parent' in producer.definedIn) {
    const parent = ctx.head.producers.get(producerKey(producer.definedIn.parent));
    if (parent && parent.kind === 'Kustomization' && !parent.prune) {
      return `its parent Kustomization ${parent.namespace}/${parent.name} has prune off`;
    }
    const own = producerObject(ctx.base, producer);
    if (own && objectMeta(own.manifest).annotations[PRUNE_ANNOTATION] === 'disabled') {
      return `it carries ${PRUNE_ANNOTATION}: disabled`;
    }
  }
  return undefined;
}

function producerRemovals(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const [key, producer] of ctx.base.producers) {
    if (ctx.head.producers.has(key)) continue;
    const count = ctx.base.cluster.objects.filter((o) => producerKey(o.producer) === key).length;
    const objects = plural(count, 'object');
    const what = describe(producerSubject(ctx, producer).resource);
    const orphaned = orphanedBy(ctx, producer);
    let message: string;
    if (orphaned) {
      message = `${what} leaves Git but stays in the cluster (${orphaned}); it keeps its ${objects} as last applied.`;
    } else if (producer.kind === 'HelmRelease') {
      message = `${what} is removed: helm uninstalls the release and its ${objects} go with it.`;
    } else if (producer.prune) {
      message = `${what} is removed: Flux prunes what it applied, so its ${objects} go with it.`;
    } else {
      message = `${what} is removed with prune off: its ${objects} stay in the cluster, unmanaged.`;
    }
    drafts.push({ rule: 'producer-removed', subject: producerSubject(ctx, producer), message });
  }
  return drafts;
}

function claimShrinks(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status === 'added' || change.status === 'removed') continue;
    if (!isKind(change, 'PersistentVolumeClaim')) continue;
    const { base, head } = rawPair(ctx, change);
    const path = ['spec', 'resources', 'requests', 'storage'];
    const before = parseQuantity(at(base, ...path));
    const after = parseQuantity(at(head, ...path));
    if (before === undefined || after === undefined || after >= before) continue;
    const subject = changeSubject(change);
    drafts.push({
      rule: 'volume-claim-shrunk',
      subject,
      message:
        `${describe(subject.resource)} asks to shrink from ${String(at(base, ...path))} to ${String(at(head, ...path))}: ` +
        'Kubernetes refuses to shrink a claim, so the apply fails, and recreating the claim loses its data.',
    });
  }
  return drafts;
}

export const dataLoss: RuleFamily = {
  name: 'data-loss',
  label: 'data loss',
  rules: [
    {
      id: 'stateful-data-deleted',
      level: 'danger',
      description:
        'A removed PersistentVolumeClaim, PersistentVolume, StatefulSet, Namespace or CRD that Flux or helm deletes.',
      headline: 'Deletes {resource}',
    },
    {
      id: 'stateful-data-orphaned',
      level: 'caution',
      description:
        'The same removals where nothing deletes the object (prune off, or a keep/prune-disabled annotation): it is orphaned.',
      headline: 'Orphans {resource}',
    },
    {
      id: 'producer-removed',
      level: 'caution',
      description:
        'A removed Kustomization or HelmRelease, with how many objects it applied at base.',
      headline: 'Removes {resource} and what it applied',
    },
    {
      id: 'volume-claim-shrunk',
      level: 'danger',
      description: 'A PersistentVolumeClaim whose storage request gets smaller.',
      headline: 'Shrinks {resource}',
    },
  ],
  check: (ctx) => [...statefulRemovals(ctx), ...producerRemovals(ctx), ...claimShrinks(ctx)],
};
