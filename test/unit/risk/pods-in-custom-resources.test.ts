/**
 * Pod rules read pod templates wherever a chart or an operator puts them: custom
 * resources such as ARC's AutoscalingRunnerSet or Argo's Rollout, by the shape of a pod
 * spec, and the built-in kinds at their known paths only, reported once.
 */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/model/render.js';
import {
  PODINFO,
  deployment,
  findingsOf,
  fired,
  helmRelease,
  obj,
  place,
  type Scenario,
} from './scenario.js';

const RUNNER_IMAGE = 'ghcr.io/actions/actions-runner:2.321.0';

function runnerSet(
  runner: Record<string, unknown> = {},
  spec: Record<string, unknown> = {},
): Manifest {
  return obj('actions.github.com/v1alpha1', 'AutoscalingRunnerSet', 'arc-runners', 'arc', {
    spec: {
      githubConfigUrl: 'https://github.com/acme',
      githubConfigSecret: 'github-app',
      maxRunners: 5,
      template: {
        spec: { containers: [{ name: 'runner', image: RUNNER_IMAGE, ...runner }], ...spec },
      },
    },
  });
}

function rollout(pod: Record<string, unknown> = {}): Manifest {
  return obj('argoproj.io/v1alpha1', 'Rollout', 'web', 'web', {
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'ghcr.io/acme/web:1.0.0' }], ...pod },
      },
    },
  });
}

const privileged = { securityContext: { privileged: true } };

describe('pods inside custom resources', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags an AutoscalingRunnerSet whose runner becomes privileged',
      { base: [runnerSet()], head: [runnerSet(privileged)] },
      ['privileged-container'],
    ],
    [
      'flags a new AutoscalingRunnerSet with a privileged runner',
      { base: [], head: [runnerSet(privileged)] },
      ['privileged-container'],
    ],
    [
      'stays quiet when the runner was already privileged at base',
      { base: [runnerSet(privileged)], head: [runnerSet({ ...privileged, args: ['--once'] })] },
      [],
    ],
    [
      "flags a Rollout whose pods take the node's network",
      { base: [rollout()], head: [rollout({ hostNetwork: true })] },
      ['host-namespace'],
    ],
    [
      'flags a hostPath volume in a custom resource',
      {
        base: [runnerSet()],
        head: [runnerSet({}, { volumes: [{ name: 'docker', hostPath: { path: '/var/run' } }] })],
      },
      ['host-path-volume'],
    ],
    [
      'stays quiet for a containers list that is not a pod spec (no images: a patch)',
      {
        base: [],
        head: [
          obj('monitoring.coreos.com/v1', 'Prometheus', 'k8s', 'monitoring', {
            spec: { containers: [{ name: 'config-reloader', ...privileged }] },
          }),
        ],
      },
      [],
    ],
    [
      'stays quiet for container lists in HelmRelease values, judged once rendered',
      {
        base: [],
        head: [
          place(
            helmRelease(PODINFO, {
              values: {
                sidecar: {
                  template: { spec: { containers: [{ name: 's', image: 'x:1', ...privileged }] } },
                },
              },
            }),
          ),
        ],
      },
      [],
    ],
    [
      'reports a privileged Deployment once, from its template only',
      {
        base: [],
        head: [
          deployment('web', {}, { containers: [{ name: 'app', image: 'a:1', ...privileged }] }),
        ],
      },
      ['privileged-container'],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'pod-privilege')).toEqual(expected);
  });

  it('names the runner container of an AutoscalingRunnerSet', () => {
    const [finding] = findingsOf(
      { base: [runnerSet()], head: [runnerSet(privileged)] },
      'privileged-container',
    );
    expect(finding).toMatchObject({
      level: 'danger',
      resource: { kind: 'AutoscalingRunnerSet', namespace: 'arc', name: 'arc-runners' },
    });
    expect(finding?.message).toBe(
      "AutoscalingRunnerSet arc/arc-runners: container runner runs privileged, with full access to the node's devices and kernel.",
    );
  });

  it('tells two pod templates of one custom resource apart', () => {
    const twoTemplates = (listener: Record<string, unknown>) =>
      obj('example.com/v1', 'RunnerPool', 'pool', 'ci', {
        spec: {
          template: { spec: { containers: [{ name: 'main', image: 'a:1' }] } },
          listenerTemplate: { spec: { containers: [{ name: 'main', image: 'b:1', ...listener }] } },
        },
      });
    const findings = findingsOf(
      { base: [twoTemplates({})], head: [twoTemplates(privileged)] },
      'privileged-container',
    );
    expect(findings.map((f) => f.message)).toEqual([
      "RunnerPool ci/pool: container main (spec.listenerTemplate.spec) runs privileged, with full access to the node's devices and kernel.",
    ]);
  });

  it('finds pod templates in lists and job templates (a JobSet)', () => {
    const jobSet = (container: Record<string, unknown>) =>
      obj('jobset.x-k8s.io/v1alpha2', 'JobSet', 'train', 'ml', {
        spec: {
          replicatedJobs: [
            {
              name: 'workers',
              template: {
                spec: {
                  template: { spec: { containers: [{ name: 'w', image: 'w:1', ...container }] } },
                },
              },
            },
          ],
        },
      });
    const [finding] = findingsOf(
      {
        base: [jobSet({})],
        head: [jobSet({ securityContext: { capabilities: { add: ['SYS_ADMIN'] } } })],
      },
      'capability-added-dangerous',
    );
    expect(finding?.message).toContain('container w gains Linux capability SYS_ADMIN');
  });

  it('does not search deeper than a pod template is ever nested', () => {
    let deep: Record<string, unknown> = {
      spec: { containers: [{ name: 'x', image: 'x:1', ...privileged }] },
    };
    for (let i = 0; i < 40; i++) deep = { nested: deep };
    const custom = obj('example.com/v1', 'Deep', 'deep', 'web', { spec: deep });
    expect(fired({ base: [], head: [custom] }, 'pod-privilege')).toEqual([]);
  });

  it('moves an image of a custom resource to a new major version as a bump', () => {
    const [finding] = findingsOf(
      {
        base: [runnerSet()],
        head: [runnerSet({ image: 'ghcr.io/actions/actions-runner:3.0.0' })],
      },
      'image-major-bump',
    );
    expect(finding?.message).toContain('container runner moves ghcr.io/actions/actions-runner');
  });
});
