import { describe, expect, it } from 'vitest';
import {
  APPS,
  PODINFO,
  ROOT,
  deployment,
  findingsOf,
  fired,
  kustomization,
  obj,
  place,
  pvc,
  service,
  statefulSet,
  type Scenario,
} from './scenario.js';

function job(image: string, annotations: Record<string, string> = {}) {
  return obj(
    'batch/v1',
    'Job',
    'migrate',
    'web',
    {
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image }] } } },
    },
    { annotations },
  );
}
function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', role: string) {
  return obj(
    'rbac.authorization.k8s.io/v1',
    kind,
    'readers',
    kind === 'RoleBinding' ? 'web' : undefined,
    {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'Group', name: 'devs' }],
    },
  );
}
const vct = (storageClassName: string) => [
  {
    metadata: { name: 'data' },
    spec: { storageClassName, resources: { requests: { storage: '10Gi' } } },
  },
];

describe('immutable fields', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a StatefulSet whose volumeClaimTemplates change, since the apply would wedge',
      {
        base: [statefulSet('pg', { volumeClaimTemplates: vct('fast') })],
        head: [statefulSet('pg', { volumeClaimTemplates: vct('slow') })],
      },
      ['immutable-field-changed'],
    ],
    [
      'flags a StatefulSet whose serviceName changes',
      { base: [statefulSet('pg')], head: [statefulSet('pg', { serviceName: 'pg-headless' })] },
      ['immutable-field-changed'],
    ],
    [
      'stays quiet when a StatefulSet changes only replicas, template, updateStrategy and the other mutable fields',
      {
        base: [statefulSet('pg')],
        head: [
          statefulSet('pg', {
            replicas: 3,
            updateStrategy: { type: 'OnDelete' },
            minReadySeconds: 5,
            revisionHistoryLimit: 2,
            ordinals: { start: 1 },
            persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' },
            template: {
              metadata: { labels: { app: 'pg' } },
              spec: { containers: [{ name: 'app', image: 'pg:17' }] },
            },
          }),
        ],
      },
      [],
    ],
    [
      'stays quiet when a StatefulSet spells out the default podManagementPolicy',
      {
        base: [statefulSet('pg')],
        head: [statefulSet('pg', { podManagementPolicy: 'OrderedReady' })],
      },
      [],
    ],
    [
      'flags a Deployment whose selector changes',
      {
        base: [deployment('web')],
        head: [deployment('web', { selector: { matchLabels: { app: 'web', tier: 'front' } } })],
      },
      ['immutable-field-changed'],
    ],
    [
      'stays quiet when a Deployment changes its replicas',
      { base: [deployment('web')], head: [deployment('web', { replicas: 5 })] },
      [],
    ],
    [
      'stays quiet when a new Deployment has any selector',
      { base: [], head: [deployment('web')] },
      [],
    ],
    [
      'flags a Job whose template changes',
      { base: [job('m:1')], head: [job('m:2')] },
      ['immutable-field-changed'],
    ],
    [
      'stays quiet for a helm hook Job, which helm recreates',
      {
        base: [job('m:1', { 'helm.sh/hook': 'pre-upgrade' })],
        head: [job('m:2', { 'helm.sh/hook': 'pre-upgrade' })],
      },
      [],
    ],
    [
      'reports a Job with force enabled as recreated instead',
      {
        base: [job('m:1', { 'kustomize.toolkit.fluxcd.io/force': 'enabled' })],
        head: [job('m:2', { 'kustomize.toolkit.fluxcd.io/force': 'enabled' })],
      },
      ['immutable-field-recreated'],
    ],
    [
      'reports a StatefulSet under a Kustomization with spec.force as recreated',
      {
        base: [statefulSet('pg'), place(kustomization(APPS, { force: true }), { producer: ROOT })],
        head: [
          statefulSet('pg', { serviceName: 'x' }),
          place(kustomization(APPS, { force: true }), { producer: ROOT }),
        ],
      },
      ['immutable-field-recreated'],
    ],
    [
      'flags a PersistentVolumeClaim whose storage class changes',
      {
        base: [pvc('pg-0', '10Gi', { storageClassName: 'fast' })],
        head: [pvc('pg-0', '10Gi', { storageClassName: 'slow' })],
      },
      ['immutable-field-changed'],
    ],
    [
      'stays quiet when a claim only grows or changes its volume attributes class',
      {
        base: [pvc('pg-0', '10Gi')],
        head: [
          pvc('pg-0', '20Gi', { volumeAttributesClassName: 'gold', volumeMode: 'Filesystem' }),
        ],
      },
      [],
    ],
    [
      'flags a RoleBinding whose roleRef changes',
      { base: [binding('RoleBinding', 'view')], head: [binding('RoleBinding', 'edit')] },
      ['immutable-field-changed'],
    ],
    [
      'flags a ClusterRoleBinding whose roleRef changes',
      {
        base: [binding('ClusterRoleBinding', 'view')],
        head: [binding('ClusterRoleBinding', 'edit')],
      },
      ['immutable-field-changed'],
    ],
    [
      'flags a Service whose pinned clusterIP changes',
      {
        base: [service('api', { clusterIP: '10.0.0.10' })],
        head: [service('api', { clusterIP: '10.0.0.11' })],
      },
      ['immutable-field-changed'],
    ],
    [
      'flags a Service that becomes headless',
      { base: [service('api')], head: [service('api', { clusterIP: 'None' })] },
      ['immutable-field-changed'],
    ],
    [
      'stays quiet when a Service pins no clusterIP on either side',
      { base: [service('api')], head: [service('api', { ports: [{ port: 8080 }] })] },
      [],
    ],
    [
      'flags a Service that switches to ExternalName',
      {
        base: [service('api')],
        head: [service('api', { type: 'ExternalName', externalName: 'api.example.com' })],
      },
      ['immutable-field-changed'],
    ],
    [
      'flags a Service that switches away from ExternalName',
      {
        base: [service('api', { type: 'ExternalName', externalName: 'x' })],
        head: [service('api')],
      },
      ['immutable-field-changed'],
    ],
    [
      'stays quiet when a Service changes between ClusterIP and NodePort',
      { base: [service('api')], head: [service('api', { type: 'NodePort' })] },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'immutable')).toEqual(expected);
  });

  it('names the field and the Kustomization that will fail to apply', () => {
    const [finding] = findingsOf(
      { base: [statefulSet('pg')], head: [statefulSet('pg', { serviceName: 'other' })] },
      'immutable-field-changed',
    );
    expect(finding?.level).toBe('danger');
    expect(finding?.message).toContain('spec.serviceName');
    expect(finding?.message).toContain('Kustomization flux-system/apps fails to apply');
  });

  it('names the HelmRelease whose upgrade will fail', () => {
    const [finding] = findingsOf(
      {
        base: [place(deployment('web'), { producer: PODINFO })],
        head: [
          place(deployment('web', { selector: { matchLabels: { x: 'y' } } }), {
            producer: PODINFO,
          }),
        ],
      },
      'immutable-field-changed',
    );
    expect(finding?.message).toContain('the upgrade of HelmRelease podinfo/podinfo fails');
  });
});
