/**
 * Part of the flux family: the spec fields that decide who a Kustomization (or a
 * HelmRelease) applies as and where, judged wherever its object is diffed. Impersonation
 * (spec.serviceAccountName) decides what it may create and delete; decryption, whether
 * SOPS files reach the cluster readable; targetNamespace and kubeConfig, where it all goes.
 */
import {
  type Manifest,
  type ResourceChange,
  isRecord,
  isSopsEncrypted,
  objectMeta,
  producerKey,
} from '../../model/index.js';
import {
  type Draft,
  type RiskContext,
  type RuleInfo,
  at,
  changeSubject,
  deepEqual,
  describe,
  isKind,
  listAt,
  manifestIs,
  rawPair,
  strAt,
} from '../kit/index.js';
import { defaultServiceAccount } from './flux-controllers.js';

export const FLUX_SPEC_RULES: readonly RuleInfo[] = [
  {
    id: 'flux-impersonation-escalated',
    level: 'danger',
    description:
      "A Kustomization or HelmRelease that drops spec.serviceAccountName (it then applies as the controller, cluster-admin in a default install, unless the controller's `--default-service-account` is rendered), or that sets it to an account bound to cluster-admin.",
    headline: '{resource} applies with cluster-admin',
  },
  {
    id: 'flux-impersonation-changed',
    level: 'caution',
    description:
      'Any other spec.serviceAccountName added, changed or dropped: what the Kustomization or HelmRelease may create and delete is what that account may do.',
    headline: '{resource} applies as another service account',
  },
  {
    id: 'flux-decryption-removed',
    level: 'danger',
    description:
      'A Kustomization whose spec.decryption is removed while it applies SOPS-encrypted files (or while what it applies is not known).',
    headline: '{resource} stops decrypting SOPS files',
  },
  {
    id: 'flux-target-changed',
    level: 'caution',
    description:
      'A Kustomization whose spec.targetNamespace or spec.kubeConfig is added, changed or removed: what it applies moves to another namespace or cluster.',
    headline: '{resource} applies to another namespace or cluster',
  },
];

const CONTROLLER = {
  Kustomization: 'kustomize-controller',
  HelmRelease: 'helm-controller',
} as const;

/** `namespace/name` of the ClusterRoleBindings at head that bind an account to cluster-admin. */
function clusterAdmins(ctx: RiskContext): Map<string, string> {
  const admins = new Map<string, string>();
  for (const list of ctx.head.objects.values()) {
    for (const { manifest } of list) {
      if (!manifestIs(manifest, 'ClusterRoleBinding')) continue;
      if (strAt(manifest, 'roleRef', 'name') !== 'cluster-admin') continue;
      for (const subject of listAt(manifest, 'subjects').filter(isRecord)) {
        if (strAt(subject, 'kind') !== 'ServiceAccount') continue;
        const account = `${strAt(subject, 'namespace') ?? ''}/${strAt(subject, 'name') ?? ''}`;
        admins.set(account, `ClusterRoleBinding ${objectMeta(manifest).name}`);
      }
    }
  }
  return admins;
}

/** Why an account has cluster-admin, or undefined when nothing rendered says so. */
function adminBecause(ctx: RiskContext, account: string, controller: string): string | undefined {
  const binding = clusterAdmins(ctx).get(account);
  if (binding) return `${binding} binds it to cluster-admin`;
  return account.endsWith(`/${controller}`)
    ? `that is ${controller}'s own account, cluster-admin in a default Flux install`
    : undefined;
}

/**
 * A change of the account a producer applies as. Escalated: dropped while the controller
 * would apply as itself (cluster-admin in a default install; unless its rendered Deployment
 * sets --default-service-account), or set to an account bound to cluster-admin that it did
 * not already apply with (it did when it had none and the controller renders without a
 * default account).
 */
function impersonation(ctx: RiskContext, change: ResourceChange, pair: Pair): Draft[] {
  const kind = isKind(change, 'HelmRelease') ? 'HelmRelease' : 'Kustomization';
  const controller = CONTROLLER[kind];
  const was = strAt(pair.base, 'spec', 'serviceAccountName');
  const is = strAt(pair.head, 'spec', 'serviceAccountName');
  if (was === is) return [];
  const subject = changeSubject(change);
  const what = describe(subject.resource);
  const namespace = change.namespace ?? 'default';
  const fallback = defaultServiceAccount(ctx, controller);
  const byDefault =
    fallback === 'own'
      ? `${controller}'s own account`
      : fallback
        ? `service account ${namespace}/${fallback.account} (${controller}'s --default-service-account)`
        : `the account ${controller} applies with when none is named (its own, unless it runs with --default-service-account)`;
  const before = was ? `service account ${namespace}/${was}` : byDefault;
  const draft = (escalated: boolean, message: string): Draft[] => [
    {
      rule: escalated ? 'flux-impersonation-escalated' : 'flux-impersonation-changed',
      subject,
      message: `${what} ${message}`,
    },
  ];
  const anything = 'everything under it may create and delete anything in the cluster';
  if (is === undefined) {
    if (fallback && fallback !== 'own') {
      return draft(false, `stops applying as ${before}: it applies as ${byDefault} instead.`);
    }
    return draft(
      true,
      `stops applying as ${before}: ${controller} applies it as its own service account, cluster-admin in a default Flux install, so ${anything}.`,
    );
  }
  const account = `${namespace}/${is}`;
  const admin = adminBecause(ctx, account, controller);
  if (admin && !(was === undefined && fallback === 'own')) {
    return draft(
      true,
      `applies as service account ${account} instead of ${before}: ${admin}, so ${anything}.`,
    );
  }
  return draft(
    false,
    `applies as service account ${account} instead of ${before}: what it may create, change and delete is now what that account may do.`,
  );
}

interface Pair {
  base: Manifest;
  head: Manifest;
}

/**
 * How many objects the Kustomization applies SOPS-encrypted, at head (base when it did not
 * render at head); undefined when it rendered on neither side, so nothing is known.
 */
function encryptedObjects(ctx: RiskContext, change: ResourceChange): number | undefined {
  const ref = {
    kind: 'Kustomization' as const,
    namespace: change.namespace ?? '',
    name: change.name,
  };
  const key = producerKey(ref);
  const rendered = (side: RiskContext['head']) => {
    const producer = side.producers.get(key);
    return producer !== undefined && producer.error === undefined && producer.skipped === undefined;
  };
  const side = rendered(ctx.head) ? ctx.head : rendered(ctx.base) ? ctx.base : undefined;
  if (!side) return undefined;
  return side.cluster.objects.filter(
    (o) => producerKey(o.producer) === key && isSopsEncrypted(o.manifest),
  ).length;
}

function decryption(ctx: RiskContext, change: ResourceChange, pair: Pair): Draft[] {
  if (at(pair.base, 'spec', 'decryption') === undefined) return [];
  if (at(pair.head, 'spec', 'decryption') !== undefined) return [];
  const encrypted = encryptedObjects(ctx, change);
  if (encrypted === 0) return [];
  const subject = changeSubject(change);
  const which =
    encrypted === undefined
      ? 'the SOPS-encrypted files it applies are'
      : encrypted === 1
        ? 'the SOPS-encrypted object it applies is'
        : `the ${encrypted} SOPS-encrypted objects it applies are`;
  const them = encrypted === 1 ? 'it' : 'them';
  return [
    {
      rule: 'flux-decryption-removed',
      subject,
      message: `${describe(subject.resource)} drops spec.decryption: ${which} no longer decrypted, so Flux fails to apply ${them} or applies ${them} still encrypted.`,
    },
  ];
}

function target(change: ResourceChange, pair: Pair): Draft[] {
  const moves: string[] = [];
  const was = strAt(pair.base, 'spec', 'targetNamespace');
  const is = strAt(pair.head, 'spec', 'targetNamespace');
  if (was !== is) {
    moves.push(
      `targetNamespace ${was ? `from ${was} ` : ''}${is ? `to ${is}` : 'removed'}: its namespaced objects move to another namespace, and the ones left behind are pruned or orphaned`,
    );
  }
  if (!deepEqual(at(pair.base, 'spec', 'kubeConfig'), at(pair.head, 'spec', 'kubeConfig'))) {
    moves.push(`its kubeConfig changes: it applies to another cluster`);
  }
  if (moves.length === 0) return [];
  const subject = changeSubject(change);
  return [
    {
      rule: 'flux-target-changed',
      subject,
      message: `${describe(subject.resource)}: ${moves.join('; ')}.`,
    },
  ];
}

export function fluxSpecChanges(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status !== 'changed' && change.status !== 'moved') continue;
    if (!isKind(change, 'Kustomization', 'HelmRelease')) continue;
    const { base, head } = rawPair(ctx, change);
    if (!base || !head) continue;
    const pair = { base, head };
    drafts.push(...impersonation(ctx, change, pair));
    if (!isKind(change, 'Kustomization')) continue;
    drafts.push(...decryption(ctx, change, pair), ...target(change, pair));
  }
  return drafts;
}
