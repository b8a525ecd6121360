import { describe, expect, it } from 'vitest';
import { container, deployment, findingsOf, fired, obj, type Scenario } from './scenario.js';
import type { Manifest } from '../../../src/model/render.js';

const sc = (securityContext: Record<string, unknown>, name = 'app') =>
  container(name, { securityContext });

/** One row per pod-template carrier: the same pod spec inside each. */
function carriers(pod: Record<string, unknown>): Array<[string, Manifest]> {
  const template = { metadata: { labels: { app: 'x' } }, spec: pod };
  return [
    ['Deployment', obj('apps/v1', 'Deployment', 'x', 'web', { spec: { template } })],
    ['StatefulSet', obj('apps/v1', 'StatefulSet', 'x', 'web', { spec: { template } })],
    ['DaemonSet', obj('apps/v1', 'DaemonSet', 'x', 'web', { spec: { template } })],
    ['ReplicaSet', obj('apps/v1', 'ReplicaSet', 'x', 'web', { spec: { template } })],
    ['Job', obj('batch/v1', 'Job', 'x', 'web', { spec: { template } })],
    [
      'CronJob',
      obj('batch/v1', 'CronJob', 'x', 'web', { spec: { jobTemplate: { spec: { template } } } }),
    ],
    ['Pod', obj('v1', 'Pod', 'x', 'web', { spec: pod })],
  ];
}

describe('pod privilege', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a container that becomes privileged',
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { containers: [sc({ privileged: true })] })],
      },
      ['privileged-container'],
    ],
    [
      'flags a new privileged DaemonSet',
      {
        base: [],
        head: [
          obj('apps/v1', 'DaemonSet', 'agent', 'kube-system', {
            spec: { template: { spec: { containers: [sc({ privileged: true })] } } },
          }),
        ],
      },
      ['privileged-container'],
    ],
    [
      'stays quiet when a container was already privileged at base',
      {
        base: [deployment('web', {}, { containers: [sc({ privileged: true })] })],
        head: [deployment('web', { replicas: 4 }, { containers: [sc({ privileged: true })] })],
      },
      [],
    ],
    [
      'flags a privileged init container',
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { initContainers: [sc({ privileged: true }, 'setup')] })],
      },
      ['privileged-container'],
    ],
    [
      'flags a privileged ephemeral container',
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { ephemeralContainers: [sc({ privileged: true }, 'dbg')] })],
      },
      ['privileged-container'],
    ],
    [
      'flags a second container that becomes privileged next to one that already was',
      {
        base: [deployment('web', {}, { containers: [sc({ privileged: true }, 'a'), sc({}, 'b')] })],
        head: [
          deployment(
            'web',
            {},
            { containers: [sc({ privileged: true }, 'a'), sc({ privileged: true }, 'b')] },
          ),
        ],
      },
      ['privileged-container'],
    ],
    [
      'flags hostNetwork',
      { base: [deployment('web')], head: [deployment('web', {}, { hostNetwork: true })] },
      ['host-namespace'],
    ],
    [
      'flags hostPID and hostIPC separately',
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { hostPID: true, hostIPC: true })],
      },
      ['host-namespace', 'host-namespace'],
    ],
    [
      'stays quiet when hostNetwork was already on',
      {
        base: [deployment('web', {}, { hostNetwork: true })],
        head: [deployment('web', { replicas: 3 }, { hostNetwork: true })],
      },
      [],
    ],
    [
      'flags a hostPath volume',
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { volumes: [{ name: 'root', hostPath: { path: '/' } }] })],
      },
      ['host-path-volume'],
    ],
    [
      'stays quiet for an emptyDir volume',
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { volumes: [{ name: 'tmp', emptyDir: {} }] })],
      },
      [],
    ],
    [
      'flags SYS_ADMIN as a dangerous capability',
      {
        base: [deployment('web')],
        head: [
          deployment('web', {}, { containers: [sc({ capabilities: { add: ['SYS_ADMIN'] } })] }),
        ],
      },
      ['capability-added-dangerous'],
    ],
    [
      'flags CAP_NET_ADMIN and ALL as dangerous capabilities',
      {
        base: [deployment('web')],
        head: [
          deployment(
            'web',
            {},
            { containers: [sc({ capabilities: { add: ['CAP_NET_ADMIN', 'all'] } })] },
          ),
        ],
      },
      ['capability-added-dangerous', 'capability-added-dangerous'],
    ],
    [
      'flags another added capability as caution',
      {
        base: [deployment('web')],
        head: [
          deployment(
            'web',
            {},
            { containers: [sc({ capabilities: { add: ['NET_BIND_SERVICE'] } })] },
          ),
        ],
      },
      ['capability-added'],
    ],
    [
      'stays quiet when capabilities are only dropped',
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { containers: [sc({ capabilities: { drop: ['ALL'] } })] })],
      },
      [],
    ],
    [
      'flags allowPrivilegeEscalation turned on',
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { containers: [sc({ allowPrivilegeEscalation: true })] })],
      },
      ['privilege-escalation-allowed'],
    ],
    [
      'stays quiet for allowPrivilegeEscalation false',
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { containers: [sc({ allowPrivilegeEscalation: false })] })],
      },
      [],
    ],
    [
      'flags runAsNonRoot dropped from the pod',
      {
        base: [deployment('web', {}, { securityContext: { runAsNonRoot: true } })],
        head: [deployment('web')],
      },
      ['run-as-non-root-dropped'],
    ],
    [
      'flags runAsNonRoot set to false on a container',
      {
        base: [deployment('web', {}, { securityContext: { runAsNonRoot: true } })],
        head: [
          deployment(
            'web',
            {},
            { securityContext: { runAsNonRoot: true }, containers: [sc({ runAsNonRoot: false })] },
          ),
        ],
      },
      ['run-as-non-root-dropped'],
    ],
    [
      'stays quiet when runAsNonRoot moves from the pod to the container',
      {
        base: [deployment('web', {}, { securityContext: { runAsNonRoot: true } })],
        head: [deployment('web', {}, { containers: [sc({ runAsNonRoot: true })] })],
      },
      [],
    ],
    [
      'stays quiet when a container that ran as non-root is removed',
      {
        base: [
          deployment('web', {}, { containers: [sc({ runAsNonRoot: true }, 'a'), sc({}, 'b')] }),
        ],
        head: [deployment('web', {}, { containers: [sc({}, 'b')] })],
      },
      [],
    ],
    [
      'stays quiet when a privileged Deployment is removed',
      { base: [deployment('web', {}, { containers: [sc({ privileged: true })] })], head: [] },
      [],
    ],
    [
      'stays quiet for an unrelated change to a workload',
      { base: [deployment('web')], head: [deployment('web', { replicas: 9 })] },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'pod-privilege')).toEqual(expected);
  });

  it.each(carriers({ containers: [sc({ privileged: true })] }))(
    'applies container rules to a %s',
    (_kind, manifest) => {
      expect(fired({ base: [], head: [manifest] }, 'pod-privilege')).toEqual([
        'privileged-container',
      ]);
    },
  );

  it.each(carriers({ hostPID: true, containers: [container('app')] }))(
    'applies pod rules to a %s',
    (_kind, manifest) => {
      expect(fired({ base: [], head: [manifest] }, 'pod-privilege')).toEqual(['host-namespace']);
    },
  );

  it('reads a pod spec inside a custom resource that reuses a built-in kind name', () => {
    const custom = obj('example.com/v1', 'Deployment', 'x', 'web', {
      spec: { template: { spec: { containers: [sc({ privileged: true })] } } },
    });
    expect(fired({ base: [], head: [custom] }, 'pod-privilege')).toEqual(['privileged-container']);
  });

  it('names the container and what it can do', () => {
    const [finding] = findingsOf(
      {
        base: [deployment('web')],
        head: [deployment('web', {}, { initContainers: [sc({ privileged: true }, 'setup')] })],
      },
      'privileged-container',
    );
    expect(finding).toMatchObject({
      level: 'danger',
      resource: { kind: 'Deployment', namespace: 'web', name: 'web' },
    });
    expect(finding?.message).toContain('init container setup runs privileged');
  });
});
