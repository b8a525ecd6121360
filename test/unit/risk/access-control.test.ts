import { describe, expect, it } from 'vitest';
import { findingsOf, fired, namespace, obj, type Scenario } from './scenario.js';

const ENFORCE = 'pod-security.kubernetes.io/enforce';
const RBAC = 'rbac.authorization.k8s.io/v1';

function role(rules: unknown[], kind: 'Role' | 'ClusterRole' = 'ClusterRole') {
  return obj(RBAC, kind, 'ops', kind === 'Role' ? 'web' : undefined, { rules });
}
function binding(
  roleName: string,
  subjects: string[],
  kind: 'RoleBinding' | 'ClusterRoleBinding' = 'ClusterRoleBinding',
) {
  return obj(RBAC, kind, 'ops', kind === 'RoleBinding' ? 'web' : undefined, {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
    subjects: subjects.map((name) => ({ kind: 'ServiceAccount', name, namespace: 'web' })),
  });
}
const netpol = obj('networking.k8s.io/v1', 'NetworkPolicy', 'deny-all', 'web', {
  spec: { podSelector: {} },
});

describe('access control', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a namespace whose Pod Security level drops from restricted to baseline',
      {
        base: [namespace('web', { [ENFORCE]: 'restricted' })],
        head: [namespace('web', { [ENFORCE]: 'baseline' })],
      },
      ['pod-security-weakened'],
    ],
    [
      'flags a namespace whose Pod Security label is removed',
      { base: [namespace('web', { [ENFORCE]: 'baseline' })], head: [namespace('web')] },
      ['pod-security-weakened'],
    ],
    [
      'stays quiet when a namespace tightens its Pod Security level',
      {
        base: [namespace('web', { [ENFORCE]: 'baseline' })],
        head: [namespace('web', { [ENFORCE]: 'restricted' })],
      },
      [],
    ],
    [
      'stays quiet when a privileged namespace drops its label',
      { base: [namespace('web', { [ENFORCE]: 'privileged' })], head: [namespace('web')] },
      [],
    ],
    [
      'stays quiet for a new namespace without the label',
      { base: [], head: [namespace('web')] },
      [],
    ],
    [
      'stays quiet for an unrelated namespace label change',
      {
        base: [namespace('web', { [ENFORCE]: 'restricted' })],
        head: [namespace('web', { [ENFORCE]: 'restricted', team: 'a' })],
      },
      [],
    ],
    [
      'flags a ClusterRole that grants every verb',
      { base: [], head: [role([{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }])] },
      ['rbac-wildcard'],
    ],
    [
      'flags a Role that grants on every resource',
      {
        base: [role([{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }], 'Role')],
        head: [role([{ apiGroups: ['apps'], resources: ['*'], verbs: ['get'] }], 'Role')],
      },
      ['rbac-wildcard'],
    ],
    [
      'stays quiet when a wildcard rule was already there at base',
      {
        base: [role([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }])],
        head: [
          role([
            { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
            { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
          ]),
        ],
      },
      [],
    ],
    [
      'stays quiet for a role without wildcards',
      {
        base: [],
        head: [role([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }])],
      },
      [],
    ],
    [
      'flags a new ClusterRoleBinding',
      { base: [], head: [binding('view', ['ci'])] },
      ['cluster-role-binding-added'],
    ],
    [
      'flags a new binding to cluster-admin as danger, not also as a new binding',
      { base: [], head: [binding('cluster-admin', ['ci'])] },
      ['cluster-admin-bound'],
    ],
    [
      'flags a RoleBinding to cluster-admin',
      { base: [], head: [binding('cluster-admin', ['ci'], 'RoleBinding')] },
      ['cluster-admin-bound'],
    ],
    [
      'flags a new subject on an existing cluster-admin binding',
      {
        base: [binding('cluster-admin', ['ci'])],
        head: [binding('cluster-admin', ['ci', 'deployer'])],
      },
      ['cluster-admin-bound'],
    ],
    [
      'stays quiet when a cluster-admin binding loses a subject',
      {
        base: [binding('cluster-admin', ['ci', 'deployer'])],
        head: [binding('cluster-admin', ['ci'])],
      },
      [],
    ],
    [
      'stays quiet when an existing ClusterRoleBinding gains a subject',
      { base: [binding('view', ['ci'])], head: [binding('view', ['ci', 'deployer'])] },
      [],
    ],
    ['flags a removed NetworkPolicy', { base: [netpol], head: [] }, ['network-policy-removed']],
    [
      'stays quiet for a NetworkPolicy that prune leaves in place',
      {
        base: [
          obj(
            'networking.k8s.io/v1',
            'NetworkPolicy',
            'deny',
            'web',
            {},
            { annotations: { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' } },
          ),
        ],
        head: [],
      },
      [],
    ],
    ['stays quiet for a new NetworkPolicy', { base: [], head: [netpol] }, []],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'access-control')).toEqual(expected);
  });

  it('says which level a namespace falls to', () => {
    const [finding] = findingsOf(
      {
        base: [namespace('web', { [ENFORCE]: 'restricted' })],
        head: [namespace('web', { [ENFORCE]: 'privileged' })],
      },
      'pod-security-weakened',
    );
    expect(finding).toMatchObject({
      level: 'danger',
      resource: { kind: 'Namespace', name: 'web' },
    });
    expect(finding?.resource.namespace).toBeUndefined();
    expect(finding?.message).toContain('privileged instead of restricted');
  });

  it('lists only the new wildcard grants', () => {
    const [finding] = findingsOf(
      {
        base: [role([{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }])],
        head: [role([{ apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['*'] }])],
      },
      'rbac-wildcard',
    );
    expect(finding?.message).toContain('every verb on secrets');
    expect(finding?.message).not.toContain('pods');
  });

  it('names the subjects that get cluster-admin', () => {
    const [finding] = findingsOf(
      {
        base: [binding('cluster-admin', ['ci'])],
        head: [binding('cluster-admin', ['ci', 'deployer'])],
      },
      'cluster-admin-bound',
    );
    expect(finding?.level).toBe('danger');
    expect(finding?.message).toContain('ServiceAccount web/deployer');
    expect(finding?.message).not.toContain('web/ci');
  });
});
