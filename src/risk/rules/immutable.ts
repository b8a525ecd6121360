/**
 * Immutable fields: changes the API server rejects on update, so the apply wedges until
 * someone deletes the object (or Flux recreates it, when force is on).
 */
import { type Manifest, type ResourceChange, isRecord, objectMeta } from '../../model/index.js';
import {
  type Draft,
  type RiskContext,
  type RuleFamily,
  at,
  changeSubject,
  deepEqual,
  describe,
  isKind,
  listSome,
  producerManifest,
  rawPair,
  strAt,
} from '../kit/index.js';

/** StatefulSet spec fields the API server lets an update change; every other one is fixed. */
const STATEFULSET_MUTABLE = new Set([
  'replicas',
  'template',
  'updateStrategy',
  'ordinals',
  'minReadySeconds',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
]);
const STATEFULSET_DEFAULTS: Record<string, unknown> = { podManagementPolicy: 'OrderedReady' };

const PVC_MUTABLE = new Set(['resources', 'volumeAttributesClassName']);
const PVC_DEFAULTS: Record<string, unknown> = { volumeMode: 'Filesystem' };

const ROLE_REF_DEFAULTS: Record<string, unknown> = { apiGroup: 'rbac.authorization.k8s.io' };

/** Spec keys (other than `mutable`) whose values differ, with absent read as the default. */
function fixedSpecChanges(
  base: Manifest,
  head: Manifest,
  mutable: ReadonlySet<string>,
  defaults: Record<string, unknown>,
): string[] {
  const before = at(base, 'spec');
  const after = at(head, 'spec');
  const keys = new Set([
    ...Object.keys(isRecord(before) ? before : {}),
    ...Object.keys(isRecord(after) ? after : {}),
  ]);
  return [...keys]
    .filter((key) => !mutable.has(key))
    .filter((key) => {
      const a = at(before, key) ?? defaults[key];
      const b = at(after, key) ?? defaults[key];
      return !deepEqual(a, b);
    })
    .sort()
    .map((key) => `spec.${key}`);
}

function changedAt(base: Manifest, head: Manifest, paths: readonly string[][]): string[] {
  return paths.filter((p) => !deepEqual(at(base, ...p), at(head, ...p))).map((p) => p.join('.'));
}

function withDefaults(value: unknown, defaults: Record<string, unknown>): unknown {
  return isRecord(value) ? { ...defaults, ...value } : value;
}

/** Service changes Kubernetes refuses: a pinned cluster IP moved, or a switch to or from ExternalName. */
function serviceChanges(base: Manifest, head: Manifest): string[] {
  const out: string[] = [];
  const ipBefore = strAt(base, 'spec', 'clusterIP');
  const ipAfter = strAt(head, 'spec', 'clusterIP');
  const pinnedMoved = !!ipBefore && !!ipAfter && ipBefore !== ipAfter;
  const becomesHeadless = !ipBefore && ipAfter === 'None';
  if (pinnedMoved || becomesHeadless) {
    out.push(`spec.clusterIP (${ipBefore ?? 'allocated'} to ${ipAfter})`);
  }
  const typeBefore = strAt(base, 'spec', 'type') ?? 'ClusterIP';
  const typeAfter = strAt(head, 'spec', 'type') ?? 'ClusterIP';
  if (typeBefore !== typeAfter && (typeBefore === 'ExternalName' || typeAfter === 'ExternalName')) {
    out.push(`spec.type (${typeBefore} to ${typeAfter})`);
  }
  return out;
}

const POD_DEFAULTS: Record<string, unknown> = {
  dnsPolicy: 'ClusterFirst',
  enableServiceLinks: true,
  restartPolicy: 'Always',
  schedulerName: 'default-scheduler',
  securityContext: {},
  terminationGracePeriodSeconds: 30,
};

function withoutImages(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((item) =>
    isRecord(item) ? Object.fromEntries(Object.entries(item).filter(([k]) => k !== 'image')) : item,
  );
}

/** Every item of `some` is in `all`. */
function within(some: unknown, all: unknown): boolean {
  const items = Array.isArray(all) ? all : [];
  return (Array.isArray(some) ? some : []).every((a) => items.some((b) => deepEqual(a, b)));
}

/**
 * What an update may do to a Pod's spec (the API server's pod update validation): change
 * container and init container images, set or lower activeDeadlineSeconds, add
 * tolerations, remove scheduling gates, and set a negative termination grace period to 1.
 */
const POD_MUTABLE: Record<string, (a: unknown, b: unknown) => boolean> = {
  containers: (a, b) => deepEqual(withoutImages(a), withoutImages(b)),
  initContainers: (a, b) => deepEqual(withoutImages(a), withoutImages(b)),
  activeDeadlineSeconds: (a, b) =>
    deepEqual(a, b) ||
    (typeof b === 'number' && (a === undefined || (typeof a === 'number' && b <= a))),
  tolerations: (a, b) => within(a, b),
  schedulingGates: (a, b) => within(b, a),
  terminationGracePeriodSeconds: (a, b) =>
    deepEqual(a ?? 30, b ?? 30) || (typeof a === 'number' && a < 0 && b === 1),
};

/** A bare Pod's spec fields the change touches that an update may not. */
function podChanges(base: Manifest, head: Manifest): string[] {
  const before = at(base, 'spec');
  const after = at(head, 'spec');
  const keys = new Set([
    ...Object.keys(isRecord(before) ? before : {}),
    ...Object.keys(isRecord(after) ? after : {}),
  ]);
  return [...keys]
    .filter((key) => {
      const a = at(before, key);
      const b = at(after, key);
      const allowed = POD_MUTABLE[key];
      if (allowed) return !allowed(a, b);
      return !deepEqual(a ?? POD_DEFAULTS[key], b ?? POD_DEFAULTS[key]);
    })
    .sort()
    .map((key) => `spec.${key}`);
}

/** The immutable field paths the change touches, for the kinds that have them. */
export function immutableChanges(change: ResourceChange, base: Manifest, head: Manifest): string[] {
  if (isKind(change, 'StatefulSet')) {
    return fixedSpecChanges(base, head, STATEFULSET_MUTABLE, STATEFULSET_DEFAULTS);
  }
  if (isKind(change, 'Deployment', 'DaemonSet', 'ReplicaSet')) {
    return changedAt(base, head, [['spec', 'selector']]);
  }
  if (isKind(change, 'Job')) {
    // Helm hooks are deleted and created afresh on every upgrade, never updated.
    if (objectMeta(head).annotations['helm.sh/hook'] !== undefined) return [];
    return changedAt(base, head, [
      ['spec', 'selector'],
      ['spec', 'template'],
    ]);
  }
  if (isKind(change, 'PersistentVolumeClaim')) {
    return fixedSpecChanges(base, head, PVC_MUTABLE, PVC_DEFAULTS);
  }
  if (isKind(change, 'RoleBinding', 'ClusterRoleBinding')) {
    const before = withDefaults(at(base, 'roleRef'), ROLE_REF_DEFAULTS);
    const after = withDefaults(at(head, 'roleRef'), ROLE_REF_DEFAULTS);
    return deepEqual(before, after) ? [] : ['roleRef'];
  }
  if (isKind(change, 'Service')) return serviceChanges(base, head);
  if (isKind(change, 'Pod')) {
    // Helm hook and test Pods are deleted and created afresh, never updated.
    if (objectMeta(head).annotations['helm.sh/hook'] !== undefined) return [];
    return podChanges(base, head);
  }
  return [];
}

/** Why the apply replaces the object instead of failing, if it does. */
function recreatedBecause(
  ctx: RiskContext,
  change: ResourceChange,
  head: Manifest,
): string | undefined {
  const ref = change.producer;
  if (ref.kind === 'Kustomization') {
    if (objectMeta(head).annotations['kustomize.toolkit.fluxcd.io/force'] === 'enabled') {
      return 'it carries kustomize.toolkit.fluxcd.io/force: enabled';
    }
    if (at(producerManifest(ctx.head, ref), 'spec', 'force') === true) {
      return `Kustomization ${ref.namespace}/${ref.name} has force on`;
    }
    return undefined;
  }
  if (at(producerManifest(ctx.head, ref), 'spec', 'upgrade', 'force') === true) {
    return `HelmRelease ${ref.namespace}/${ref.name} upgrades with force`;
  }
  return undefined;
}

function check(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status !== 'changed' && !(change.status === 'moved' && change.contentChanged)) {
      continue;
    }
    const { base, head } = rawPair(ctx, change);
    if (!base || !head) continue;
    const fields = immutableChanges(change, base, head);
    if (fields.length === 0) continue;
    const subject = changeSubject(change);
    const what = `${describe(subject.resource)} changes ${listSome(fields)}`;
    const because = recreatedBecause(ctx, change, head);
    const ref = change.producer;
    if (because) {
      drafts.push({
        rule: 'immutable-field-recreated',
        subject,
        message: `${what}, which cannot change in place: ${because}, so the object is deleted and created again.`,
      });
    } else {
      const stuck =
        ref.kind === 'HelmRelease'
          ? `the upgrade of HelmRelease ${ref.namespace}/${ref.name} fails`
          : `${ref.kind} ${ref.namespace}/${ref.name} fails to apply`;
      drafts.push({
        rule: 'immutable-field-changed',
        subject,
        message: `${what}, which Kubernetes refuses to update: ${stuck} until the object is deleted by hand.`,
      });
    }
  }
  return drafts;
}

export const immutable: RuleFamily = {
  name: 'immutable',
  label: 'immutable field',
  rules: [
    {
      id: 'immutable-field-changed',
      level: 'danger',
      description:
        'A change to a field the API server will not update (StatefulSet spec, workload selectors, Job template, PVC spec, a Pod spec beyond images, roleRef, pinned clusterIP, ExternalName switch).',
      headline: 'Changes an immutable field of {resource}',
    },
    {
      id: 'immutable-field-recreated',
      level: 'caution',
      description:
        'The same change where force is on, so Flux or helm deletes and recreates the object instead.',
      headline: 'Recreates {resource}',
    },
  ],
  check,
};
