/**
 * Availability: whether workloads keep serving and can be moved. Scale-downs to zero,
 * disruption budgets that go away or block every eviction, and producers that stop
 * rendering.
 */
import {
  type Manifest,
  type RenderError,
  type ResourceChange,
  isRecord,
  objectMeta,
  producerKey,
} from '../../model/index.js';
import {
  type Draft,
  type RevisionView,
  type RiskContext,
  type RuleFamily,
  type Subject,
  at,
  changeSubject,
  describe,
  introducedBy,
  isKind,
  listAt,
  listSome,
  manifestIs,
  objAt,
  objectSubject,
  podLabels,
  producerSubject,
  removalFate,
  strAt,
  strings,
} from '../kit/index.js';

const SCALABLE = ['Deployment', 'StatefulSet', 'ReplicaSet'] as const;

function replicas(manifest: Manifest): number {
  const value = at(manifest, 'spec', 'replicas');
  return typeof value === 'number' ? value : 1;
}

function scaledToZero(ctx: RiskContext, change: ResourceChange): Draft[] {
  if (change.status === 'added' || !isKind(change, ...SCALABLE)) return [];
  const zero = introducedBy(ctx, change, (m) => (replicas(m) === 0 ? [{ key: 'zero' }] : []));
  if (zero.length === 0) return [];
  const subject = changeSubject(change);
  return [
    {
      rule: 'replicas-zero',
      subject,
      message: `${describe(subject.resource)} is scaled to 0 replicas: its pods stop and it serves nothing.`,
    },
  ];
}

/** Whether a label selector (matchLabels and matchExpressions) selects these labels. */
export function selects(selector: unknown, labels: Record<string, string>): boolean {
  if (!isRecord(selector)) return false;
  for (const [k, v] of Object.entries(objAt(selector, 'matchLabels') ?? {})) {
    if (labels[k] !== v) return false;
  }
  for (const expr of listAt(selector, 'matchExpressions')) {
    const key = strAt(expr, 'key') ?? '';
    const values = strings(at(expr, 'values'));
    const value = labels[key];
    switch (strAt(expr, 'operator')) {
      case 'In':
        if (value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (value === undefined) return false;
        break;
      case 'DoesNotExist':
        if (value !== undefined) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function percent(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+)%$/.exec(value.trim());
  return match ? Number(match[1]) : undefined;
}

/** Why a PodDisruptionBudget allows no voluntary eviction at this revision, if it does not. */
function blocksEvictions(side: RevisionView, pdb: Manifest): string | undefined {
  const maxUnavailable = at(pdb, 'spec', 'maxUnavailable');
  if (maxUnavailable === 0 || percent(maxUnavailable) === 0) return 'maxUnavailable is 0';
  const minAvailable = at(pdb, 'spec', 'minAvailable');
  if (minAvailable === undefined) return undefined;
  const namespace = objectMeta(pdb).namespace;
  const selector = at(pdb, 'spec', 'selector');
  const workloads = side.cluster.objects
    .map((o) => o.manifest)
    .filter((m) => manifestIs(m, ...SCALABLE) && objectMeta(m).namespace === namespace)
    .filter((m) => selects(selector, podLabels(m)));
  const total = workloads.reduce((sum, m) => sum + replicas(m), 0);
  if (total === 0) return undefined;
  const share = percent(minAvailable);
  const needed = share === undefined ? minAvailable : Math.ceil((total * share) / 100);
  if (typeof needed !== 'number' || needed < total) return undefined;
  const names = workloads.map((m) => `${objectMeta(m).kind} ${objectMeta(m).name}`);
  return `minAvailable ${String(minAvailable)} with ${total} ${total === 1 ? 'replica' : 'replicas'} of ${listSome(names)}`;
}

function disruptionBudgets(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  const changes = new Map(ctx.diff.changes.map((c) => [c.id, c]));
  for (const [id, objects] of ctx.head.objects) {
    const object = objects[0];
    if (!object || !manifestIs(object.manifest, 'PodDisruptionBudget')) continue;
    const reason = blocksEvictions(ctx.head, object.manifest);
    if (!reason) continue;
    const before = ctx.base.objects.get(id)?.[0];
    if (before && blocksEvictions(ctx.base, before.manifest)) continue;
    const change = changes.get(id);
    const subject: Subject = change ? changeSubject(change) : objectSubject(object);
    drafts.push({
      rule: 'pdb-impossible',
      subject,
      message: `${describe(subject.resource)} allows no voluntary eviction (${reason}): node drains and cluster upgrades block on its pods.`,
    });
  }
  for (const change of ctx.diff.changes) {
    if (change.status !== 'removed' || !isKind(change, 'PodDisruptionBudget')) continue;
    if (removalFate(ctx, change).kind !== 'deleted') continue;
    const subject = changeSubject(change);
    drafts.push({
      rule: 'pdb-removed',
      subject,
      message: `${describe(subject.resource)} is deleted: drains and upgrades may evict all of its pods at once.`,
    });
  }
  return drafts;
}

/**
 * A producer that applies an object another one applies has rendered: its `applied-twice`
 * error is flux-applied-twice's to judge. The diff's copy of an error has no code, so it
 * is matched to the cluster's by producer, file and message.
 */
function isConflict(ctx: RiskContext, error: RenderError): boolean {
  return ctx.head.cluster.errors.some(
    (e) =>
      e.code === 'applied-twice' &&
      producerKey(e.producer) === producerKey(error.producer) &&
      e.file === error.file &&
      e.message === error.message,
  );
}

function renderErrors(ctx: RiskContext): Draft[] {
  const introduced = ctx.diff.summary.errorsIntroduced.filter((e) => !isConflict(ctx, e));
  return introduced.map((error) => {
    const key = producerKey(error.producer);
    const before = ctx.base.producers.get(key);
    const producer = ctx.head.producers.get(key) ?? before;
    const subject: Subject = producer
      ? producerSubject(ctx, producer)
      : { resource: { ...error.producer } };
    if (error.file) {
      subject.file = error.file;
      delete subject.line;
    }
    const what = describe(subject.resource);
    const renderedBefore = before && before.error === undefined && before.skipped === undefined;
    return {
      rule: 'render-error-introduced',
      subject,
      message: renderedBefore
        ? `${what} no longer renders: Flux fails to reconcile it, so its objects stay as last applied and nothing in it rolls out.`
        : `${what} fails to render: Flux fails to reconcile it, so none of its objects are created.`,
    };
  });
}

export const availability: RuleFamily = {
  name: 'availability',
  label: 'availability',
  rules: [
    {
      id: 'replicas-zero',
      level: 'caution',
      description: 'A Deployment, StatefulSet or ReplicaSet scaled to 0 replicas.',
      headline: 'Scales {resource} to zero',
    },
    {
      id: 'pdb-removed',
      level: 'caution',
      description: 'A PodDisruptionBudget that is deleted from the cluster.',
      headline: 'Deletes {resource}',
    },
    {
      id: 'pdb-impossible',
      level: 'caution',
      description:
        'A PodDisruptionBudget that allows no eviction: maxUnavailable 0, or minAvailable at least the replicas it selects.',
      headline: 'Blocks node drains with {resource}',
    },
    {
      id: 'render-error-introduced',
      level: 'danger',
      description:
        'A Kustomization or HelmRelease that fails to render at head (it rendered at base, or is new) for a reason in the repository; a chart that cannot be fetched is not one.',
      headline: '{resource} fails to render',
    },
  ],
  check: (ctx) => [
    ...ctx.diff.changes.flatMap((c) => scaledToZero(ctx, c)),
    ...disruptionBudgets(ctx),
    ...renderErrors(ctx),
  ],
};
