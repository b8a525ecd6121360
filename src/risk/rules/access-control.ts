/**
 * Access control: who may do what in the cluster. Pod Security admission levels, RBAC
 * grants and bindings, and network policies.
 */
import { isRecord, objectMeta, type Manifest } from '../../model/index.js';
import {
  type Draft,
  type Fact,
  type RiskContext,
  type RuleFamily,
  changeSubject,
  describe,
  droppedBy,
  introducedBy,
  isKind,
  listAt,
  listSome,
  rawPair,
  removalFate,
  strAt,
  strings,
} from '../kit/index.js';

const ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';
/** Pod Security levels from weakest to strongest. */
const PSA_LEVELS = ['privileged', 'baseline', 'restricted'];

/** One fact per level the namespace enforces at least, so weakening drops facts. */
function enforcedLevels(manifest: Manifest): Fact[] {
  const rank = PSA_LEVELS.indexOf(objectMeta(manifest).labels[ENFORCE_LABEL] ?? 'privileged');
  return PSA_LEVELS.slice(1, rank + 1).map((level) => ({ key: level }));
}

function podSecurity(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (!isKind(change, 'Namespace') || droppedBy(ctx, change, enforcedLevels).length === 0) {
      continue;
    }
    const { base, head } = rawPair(ctx, change);
    const before = base ? objectMeta(base).labels[ENFORCE_LABEL] : undefined;
    const after = head ? objectMeta(head).labels[ENFORCE_LABEL] : undefined;
    const subject = changeSubject(change);
    drafts.push({
      rule: 'pod-security-weakened',
      subject,
      message: after
        ? `${describe(subject.resource)} enforces Pod Security level ${after} instead of ${before}: pods the stricter level refused are admitted.`
        : `${describe(subject.resource)} no longer enforces Pod Security level ${before}: pods it refused are admitted, up to what the cluster default allows.`,
    });
  }
  return drafts;
}

function groupLabel(group: string): string {
  if (group === '*') return 'every API group';
  return group === '' ? 'the core API group' : group;
}

/** Every (group, resource, verb) grant where the resource or the verb is a wildcard. */
function wildcardGrants(manifest: Manifest): Array<Fact & { what: string }> {
  if (!isKind(objectMeta(manifest), 'Role', 'ClusterRole')) return [];
  const out: Array<Fact & { what: string }> = [];
  for (const rule of listAt(manifest, 'rules')) {
    if (!isRecord(rule)) continue;
    const groups = Array.isArray(rule['apiGroups']) ? strings(rule['apiGroups']) : [''];
    for (const group of groups) {
      for (const resource of strings(rule['resources'])) {
        for (const verb of strings(rule['verbs'])) {
          if (resource !== '*' && verb !== '*') continue;
          let what: string;
          if (resource === '*' && verb === '*') what = `everything in ${groupLabel(group)}`;
          else if (verb === '*') what = `every verb on ${resource}${group ? ` (${group})` : ''}`;
          else what = `${verb} on every resource in ${groupLabel(group)}`;
          out.push({ key: `${group}|${resource}|${verb}`, what });
        }
      }
    }
  }
  return out;
}

function isClusterAdmin(manifest: Manifest): boolean {
  return (
    strAt(manifest, 'roleRef', 'kind') === 'ClusterRole' &&
    strAt(manifest, 'roleRef', 'name') === 'cluster-admin'
  );
}

function subjectName(subject: unknown): string {
  const kind = strAt(subject, 'kind') ?? 'subject';
  const ns = strAt(subject, 'namespace');
  return `${kind} ${ns ? `${ns}/` : ''}${strAt(subject, 'name') ?? ''}`;
}

/** The subjects a binding grants cluster-admin to. */
function clusterAdminSubjects(manifest: Manifest): Array<Fact & { what: string }> {
  if (!isKind(objectMeta(manifest), 'RoleBinding', 'ClusterRoleBinding')) return [];
  if (!isClusterAdmin(manifest)) return [];
  return listAt(manifest, 'subjects').map((s) => ({ key: subjectName(s), what: subjectName(s) }));
}

function rbac(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status === 'removed') continue;
    const subject = changeSubject(change);
    const what = describe(subject.resource);
    const grants = introducedBy(ctx, change, wildcardGrants);
    if (grants.length > 0) {
      drafts.push({
        rule: 'rbac-wildcard',
        subject,
        message: `${what} grants ${listSome(grants.map((g) => g.what))}, including whatever those wildcards cover in the future.`,
      });
    }
    const admins = introducedBy(ctx, change, clusterAdminSubjects);
    if (admins.length > 0) {
      const scope =
        change.kind === 'ClusterRoleBinding'
          ? 'across the whole cluster'
          : `in namespace ${change.namespace ?? ''}`;
      drafts.push({
        rule: 'cluster-admin-bound',
        subject,
        message: `${what} gives cluster-admin ${scope} to ${listSome(admins.map((a) => a.what))}.`,
      });
      continue;
    }
    if (change.status === 'added' && isKind(change, 'ClusterRoleBinding')) {
      const head = rawPair(ctx, change).head;
      const subjects = listAt(head, 'subjects').map(subjectName);
      drafts.push({
        rule: 'cluster-role-binding-added',
        subject,
        message: `${what} grants ClusterRole ${strAt(head, 'roleRef', 'name') ?? ''} across the whole cluster to ${subjects.length > 0 ? listSome(subjects) : 'no subjects yet'}.`,
      });
    }
  }
  return drafts;
}

function networkPolicies(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status !== 'removed' || !isKind(change, 'NetworkPolicy')) continue;
    if (removalFate(ctx, change).kind !== 'deleted') continue;
    const subject = changeSubject(change);
    drafts.push({
      rule: 'network-policy-removed',
      subject,
      message: `${describe(subject.resource)} is deleted: the pods it selected lose its restrictions, and traffic it blocked may flow.`,
    });
  }
  return drafts;
}

export const accessControl: RuleFamily = {
  name: 'access-control',
  label: 'privilege',
  rules: [
    {
      id: 'pod-security-weakened',
      level: 'danger',
      description: `A Namespace whose ${ENFORCE_LABEL} label is lowered (restricted > baseline > privileged) or removed.`,
      headline: 'Weakens Pod Security in {resource}',
    },
    {
      id: 'rbac-wildcard',
      level: 'danger',
      description: "A Role or ClusterRole rule with '*' verbs or resources.",
      headline: 'Grants wildcard access in {resource}',
    },
    {
      id: 'cluster-admin-bound',
      level: 'danger',
      description: 'A RoleBinding or ClusterRoleBinding that binds new subjects to cluster-admin.',
      headline: 'Grants cluster-admin through {resource}',
    },
    {
      id: 'cluster-role-binding-added',
      level: 'caution',
      description:
        'A new ClusterRoleBinding (to anything but cluster-admin, which the rule above covers).',
      headline: 'Adds {resource}',
    },
    {
      id: 'network-policy-removed',
      level: 'caution',
      description: 'A NetworkPolicy that is deleted from the cluster.',
      headline: 'Deletes {resource}',
    },
  ],
  check: (ctx) => [...podSecurity(ctx), ...rbac(ctx), ...networkPolicies(ctx)],
};
