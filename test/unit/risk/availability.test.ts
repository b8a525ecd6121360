import { describe, expect, it } from 'vitest';
import type { RenderError } from '../../../src/model/render.js';
import {
  APPS,
  DEFAULT_PRODUCERS,
  PODINFO,
  ROOT,
  deployment,
  findingsOf,
  fired,
  obj,
  producer,
  statefulSet,
  type Scenario,
} from './scenario.js';

function pdb(spec: Record<string, unknown>, selector: unknown = { matchLabels: { app: 'web' } }) {
  return obj('policy/v1', 'PodDisruptionBudget', 'web', 'web', { spec: { selector, ...spec } });
}
const web = (replicas: number) => deployment('web', { replicas });
const podinfoError: RenderError = { producer: PODINFO, message: 'chart not found' };
const failing = [
  DEFAULT_PRODUCERS[0]!,
  DEFAULT_PRODUCERS[1]!,
  producer(PODINFO, { definedIn: { parent: APPS }, error: 'chart not found' }),
];

describe('availability', () => {
  it.each<[string, Scenario, string[]]>([
    ['flags a Deployment scaled to zero', { base: [web(3)], head: [web(0)] }, ['replicas-zero']],
    [
      'flags a StatefulSet scaled to zero from the default of one',
      {
        base: [statefulSet('pg', { replicas: undefined })],
        head: [statefulSet('pg', { replicas: 0 })],
      },
      ['replicas-zero'],
    ],
    [
      'stays quiet when a Deployment was already at zero',
      {
        base: [deployment('web', { replicas: 0, paused: false })],
        head: [deployment('web', { replicas: 0, paused: true })],
      },
      [],
    ],
    ['stays quiet for a new Deployment at zero', { base: [], head: [web(0)] }, []],
    [
      'stays quiet when a Deployment scales down but not to zero',
      { base: [web(3)], head: [web(1)] },
      [],
    ],
    [
      'flags a removed PodDisruptionBudget',
      { base: [pdb({ minAvailable: 1 }), web(3)], head: [web(3)] },
      ['pdb-removed'],
    ],
    [
      'flags a PodDisruptionBudget with maxUnavailable 0',
      { base: [web(3)], head: [web(3), pdb({ maxUnavailable: 0 })] },
      ['pdb-impossible'],
    ],
    [
      'flags a PodDisruptionBudget with maxUnavailable 0%',
      { base: [web(3), pdb({ maxUnavailable: 1 })], head: [web(3), pdb({ maxUnavailable: '0%' })] },
      ['pdb-impossible'],
    ],
    [
      'flags minAvailable equal to the replicas it selects',
      { base: [web(3), pdb({ minAvailable: 2 })], head: [web(3), pdb({ minAvailable: 3 })] },
      ['pdb-impossible'],
    ],
    [
      'flags a scale-down that makes an unchanged PodDisruptionBudget impossible',
      { base: [web(3), pdb({ minAvailable: 2 })], head: [web(2), pdb({ minAvailable: 2 })] },
      ['pdb-impossible'],
    ],
    [
      'flags a percentage minAvailable that rounds up to every replica',
      { base: [web(1)], head: [web(1), pdb({ minAvailable: '50%' })] },
      ['pdb-impossible'],
    ],
    [
      'stays quiet when minAvailable leaves room to evict',
      { base: [web(3)], head: [web(3), pdb({ minAvailable: 2 })] },
      [],
    ],
    [
      'stays quiet when a PodDisruptionBudget was already impossible at base',
      { base: [web(2), pdb({ minAvailable: 2 })], head: [web(2), pdb({ minAvailable: 3 })] },
      [],
    ],
    [
      'stays quiet when the PodDisruptionBudget selects no workload it knows',
      {
        base: [web(3)],
        head: [web(3), pdb({ minAvailable: 5 }, { matchLabels: { app: 'other' } })],
      },
      [],
    ],
    [
      'matches workloads by matchExpressions',
      {
        base: [web(2)],
        head: [
          web(2),
          pdb(
            { minAvailable: 2 },
            { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] },
          ),
        ],
      },
      ['pdb-impossible'],
    ],
    [
      'flags a producer that rendered at base and fails at head',
      { base: [], head: [], headProducers: failing, errorsIntroduced: [podinfoError] },
      ['render-error-introduced'],
    ],
    [
      'flags a new producer that fails to render',
      {
        base: [],
        head: [],
        baseProducers: DEFAULT_PRODUCERS.slice(0, 2),
        headProducers: failing,
        errorsIntroduced: [podinfoError],
      },
      ['render-error-introduced'],
    ],
    [
      'stays quiet when the diff reports no introduced render error',
      { base: [], head: [], baseProducers: failing, headProducers: failing },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'availability')).toEqual(expected);
  });

  it('explains why a budget blocks drains', () => {
    const [finding] = findingsOf(
      { base: [web(3), pdb({ minAvailable: 2 })], head: [web(2), pdb({ minAvailable: 2 })] },
      'pdb-impossible',
    );
    expect(finding).toMatchObject({
      level: 'caution',
      resource: { kind: 'PodDisruptionBudget', namespace: 'web', name: 'web' },
    });
    expect(finding?.message).toContain('minAvailable 2 with 2 replicas of Deployment web');
  });

  it('reports a render error on the producer, at the file the error names', () => {
    const [finding] = findingsOf(
      {
        base: [],
        head: [],
        headProducers: failing,
        errorsIntroduced: [{ ...podinfoError, file: 'apps/podinfo/release.yaml' }],
      },
      'render-error-introduced',
    );
    expect(finding).toEqual({
      rule: 'render-error-introduced',
      level: 'danger',
      cluster: 'home',
      resource: { kind: 'HelmRelease', namespace: 'podinfo', name: 'podinfo' },
      producer: APPS,
      message: expect.stringContaining('no longer renders'),
      file: 'apps/podinfo/release.yaml',
    });
  });

  it('points a render error of a top-level producer at its definition line', () => {
    const top = [
      producer(ROOT, {
        path: './clusters/home',
        error: 'kustomize build failed',
        definedIn: { file: 'clusters/home/sync.yaml', line: 12 },
      }),
    ];
    const [finding] = findingsOf(
      {
        base: [],
        head: [],
        headProducers: top,
        errorsIntroduced: [{ producer: ROOT, message: 'x' }],
      },
      'render-error-introduced',
    );
    expect(finding).toMatchObject({ file: 'clusters/home/sync.yaml', line: 12 });
    expect(finding?.producer).toBeUndefined();
  });
});
