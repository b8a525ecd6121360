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
  type ProducerRef,
  type RenderedObject,
  type ResourceChange,
} from '../../model/index.js';
import {
  type Draft,
  type KnownKind,
  PRUNE_ANNOTATION,
  type RiskContext,
  type RuleFamily,
  at,
  changeSubject,
  currentProducer,
  describe,
  fromChartCrds,
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

/** "its 3 objects go", "its 1 object goes": a count with its verb agreeing. */
function its(count: number, noun: string, one: string, many: string): string {
  return `its ${plural(count, noun)} ${count === 1 ? one : many}`;
}

/** Whether a producer could not be rendered at base, so its objects there are unknown. */
function unrendered(ctx: RiskContext, producer: Producer): boolean {
  const key = producerKey(producer);
  return (
    producer.error !== undefined ||
    producer.skipped !== undefined ||
    ctx.base.cluster.errors.some((e) => producerKey(e.producer) === key)
  );
}

function isChartCrd(object: RenderedObject): boolean {
  const { apiVersion, kind } = objectMeta(object.manifest);
  return fromChartCrds({ apiVersion, kind, producer: object.producer, file: object.file });
}

const NOT_RENDERED = 'as it could not be rendered at base';

/** The message of a removed producer whose objects at base are not known (unrendered). */
function unknownRemovalMessage(ctx: RiskContext, producer: Producer, what: string): string {
  const orphaned = orphanedBy(ctx, producer);
  if (orphaned) {
    return `${what} leaves Git but stays in the cluster (${orphaned}); it keeps the objects it last applied, which are not known, ${NOT_RENDERED}.`;
  }
  const helm = producer.kind === 'HelmRelease';
  if (!helm && !producer.prune) {
    return `${what} is removed with prune off: the objects it applied stay in the cluster, unmanaged; which they are is not known, ${NOT_RENDERED}.`;
  }
  const how = helm ? 'helm uninstalls the release' : 'Flux prunes what it applied';
  return `${what} is removed: ${how}; which objects go with it is not known, ${NOT_RENDERED}.`;
}

function removalMessage(
  ctx: RiskContext,
  producer: Producer,
  objects: readonly RenderedObject[],
  what: string,
): string {
  const orphaned = orphanedBy(ctx, producer);
  if (orphaned) {
    return `${what} leaves Git but stays in the cluster (${orphaned}); it keeps its ${plural(objects.length, 'object')} as last applied.`;
  }
  const helm = producer.kind === 'HelmRelease';
  if (!helm && !producer.prune) {
    return `${what} is removed with prune off: ${its(objects.length, 'object', 'stays', 'stay')} in the cluster, unmanaged.`;
  }
  const how = helm ? 'helm uninstalls the release' : 'Flux prunes what it applied';
  if (objects.length === 0) return `${what} is removed: it applied no objects.`;
  // helm-controller applies a chart's crds/ CRDs outside the release: uninstalling keeps them.
  const crds = helm ? objects.filter(isChartCrd).length : 0;
  const gone = objects.length - crds;
  const goes =
    gone > 0 ? `${helm ? ' and' : ', so'} ${its(gone, 'object', 'goes', 'go')} with it` : '';
  const stays =
    crds > 0
      ? `; ${its(crds, 'CRD', 'stays', 'stay')}, as helm never deletes CRDs from a chart's crds/ folder`
      : '';
  return `${what} is removed: ${how}${goes}${stays}.`;
}

/**
 * Removed producers. One that rendered nothing at base because it could not be rendered
 * has its own rule, whose headline does not say what it applied goes with it.
 */
function producerRemovals(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const [key, producer] of ctx.base.producers) {
    if (ctx.head.producers.has(key)) continue;
    const subject = producerSubject(ctx, producer);
    const what = describe(subject.resource);
    const objects = ctx.base.cluster.objects.filter((o) => producerKey(o.producer) === key);
    if (objects.length === 0 && unrendered(ctx, producer)) {
      const message = unknownRemovalMessage(ctx, producer, what);
      drafts.push({ rule: 'producer-removed-unrendered', subject, message });
    } else {
      const message = removalMessage(ctx, producer, objects, what);
      drafts.push({ rule: 'producer-removed', subject, message });
    }
  }
  return drafts;
}

/** Whether the old Kustomization waits for the new producer, which so relabels the object first. */
function waitsFor(ctx: RiskContext, from: ProducerRef, to: ProducerRef): boolean {
  const old = ctx.head.producers.get(producerKey(from));
  return !!old && old.dependsOn.some((d) => producerKey(d) === producerKey(to));
}

function moveMessage(
  ctx: RiskContext,
  change: ResourceChange,
  from: ProducerRef,
): string | undefined {
  const fate = removalFate(ctx, change, from);
  if (fate.kind !== 'deleted') return undefined;
  const what = describe(changeSubject(change).resource);
  const to = change.producer;
  const [oldName, newName] = [from, to].map((r) => `${r.kind} ${r.namespace}/${r.name}`);
  const consequence = CONSEQUENCE[change.kind as KnownKind]?.(rawPair(ctx, change).base) ?? '';
  if (from.kind === 'HelmRelease') {
    return `${what} moves from ${oldName} to ${newName}, but ${fate.by}; ${consequence}; ${newName} then creates it again.`;
  }
  if (currentProducer(ctx, from)?.suspend || waitsFor(ctx, from, to)) return undefined;
  return (
    `${what} moves from ${oldName} to ${newName}, which both reconcile the new revision at once: ` +
    `if ${oldName} prunes before ${newName} has applied it (and so labelled it as its own), ` +
    `${oldName} deletes it; ${consequence}. Make ${oldName} depend on ${newName}, or annotate it ` +
    `${PRUNE_ANNOTATION}: disabled for the move.`
  );
}

/**
 * Stateful objects that move to another producer but may be deleted on the way. helm
 * deletes what leaves a release whoever applies it next; kustomize-controller's garbage
 * collection deletes an object only while it still carries the old Kustomization's
 * name and namespace labels, so the order of the two reconciles decides.
 */
function statefulMoves(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    const from = change.previousProducer;
    if (change.status !== 'moved' || !from || !isKind(change, ...STATEFUL)) continue;
    const message = moveMessage(ctx, change, from);
    if (message)
      drafts.push({ rule: 'stateful-move-deleted', subject: changeSubject(change), message });
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
      id: 'stateful-move-deleted',
      level: 'danger',
      description:
        'One of those kinds moving to another producer when the old one may delete it on the way: helm, or a pruning Kustomization that does not depend on the new one.',
      headline: 'May delete {resource} as it moves',
    },
    {
      id: 'producer-removed',
      level: 'caution',
      description:
        'A removed Kustomization or HelmRelease, with how many objects it applied at base.',
      headline: 'Removes {resource} and what it applied',
    },
    {
      id: 'producer-removed-unrendered',
      level: 'caution',
      description:
        'A removed Kustomization or HelmRelease that could not be rendered at base (a chart or source unavailable, a build error), so what it applied, and what goes with it, is not known.',
      headline: 'Removes {resource}; what it applied is not known',
    },
    {
      id: 'volume-claim-shrunk',
      level: 'danger',
      description: 'A PersistentVolumeClaim whose storage request gets smaller.',
      headline: 'Shrinks {resource}',
    },
  ],
  check: (ctx) => [
    ...statefulRemovals(ctx),
    ...statefulMoves(ctx),
    ...producerRemovals(ctx),
    ...claimShrinks(ctx),
  ],
};
