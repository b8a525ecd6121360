import { describe, expect, it } from 'vitest';
import type { Producer } from '../../../src/model/render.js';
import {
  APPS,
  DEFAULT_PRODUCERS,
  PODINFO,
  ROOT,
  deployment,
  findingsOf,
  fired,
  helmRelease,
  kustomization,
  obj,
  place,
  producer,
  pvc,
  type Scenario,
} from './scenario.js';

const INFRA = { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' } as const;

/** The default producers with APPS replaced. */
function withApps(over: Partial<Producer>): Producer[] {
  return [
    DEFAULT_PRODUCERS[0]!,
    producer(APPS, { definedIn: { parent: ROOT }, ...over }),
    DEFAULT_PRODUCERS[2]!,
  ];
}
const withInfra = (apps: Partial<Producer> = {}) => [
  ...withApps(apps),
  producer(INFRA, { definedIn: { parent: ROOT } }),
];
const cm = (name: string, data = '1') => obj('v1', 'ConfigMap', name, 'web', { data: { a: data } });

describe('flux', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a Kustomization that becomes suspended',
      { base: [], head: [], headProducers: withApps({ suspend: true }) },
      ['flux-suspended'],
    ],
    [
      'flags a Kustomization that is resumed',
      { base: [], head: [], baseProducers: withApps({ suspend: true }) },
      ['flux-resumed'],
    ],
    [
      'stays quiet when a producer was suspended on both sides and nothing under it changed',
      {
        base: [],
        head: [],
        baseProducers: withApps({ suspend: true }),
        headProducers: withApps({ suspend: true }),
      },
      [],
    ],
    [
      'flags changes under a suspended Kustomization, as they will not roll out',
      {
        base: [cm('a')],
        head: [cm('a', '2')],
        baseProducers: withApps({ suspend: true }),
        headProducers: withApps({ suspend: true }),
      },
      ['flux-change-while-suspended'],
    ],
    [
      'stays quiet about changes when the producer is resumed in the same change',
      { base: [cm('a')], head: [cm('a', '2')], baseProducers: withApps({ suspend: true }) },
      ['flux-resumed'],
    ],
    [
      'flags removals under a non-pruning Kustomization',
      {
        base: [cm('a'), cm('b')],
        head: [],
        baseProducers: withApps({ prune: false }),
        headProducers: withApps({ prune: false }),
      },
      ['flux-removal-orphaned'],
    ],
    ['stays quiet about removals under a pruning Kustomization', { base: [cm('a')], head: [] }, []],
    [
      'leaves a removed claim under a non-pruning Kustomization to the data-loss rule',
      {
        base: [pvc('pg-0')],
        head: [],
        baseProducers: withApps({ prune: false }),
        headProducers: withApps({ prune: false }),
      },
      [],
    ],
    [
      'flags prune turned off',
      { base: [], head: [], headProducers: withApps({ prune: false }) },
      ['flux-prune-disabled'],
    ],
    [
      'flags prune turned on',
      { base: [], head: [], baseProducers: withApps({ prune: false }) },
      ['flux-prune-enabled'],
    ],
    [
      'flags a Kustomization path change',
      { base: [], head: [], headProducers: withApps({ path: './apps/v2' }) },
      ['flux-repointed'],
    ],
    [
      'flags a Kustomization sourceRef change',
      {
        base: [],
        head: [],
        headProducers: withApps({ source: 'GitRepository/flux-system/other' }),
      },
      ['flux-repointed'],
    ],
    [
      'stays quiet when a HelmRelease chart path changes (that is a chart change, not a re-point)',
      {
        base: [],
        head: [],
        headProducers: [
          DEFAULT_PRODUCERS[0]!,
          DEFAULT_PRODUCERS[1]!,
          producer(PODINFO, { definedIn: { parent: APPS }, path: './charts/v2' }),
        ],
      },
      [],
    ],
    [
      'flags spec.force turned on',
      {
        base: [place(kustomization(APPS), { producer: ROOT })],
        head: [place(kustomization(APPS, { force: true }), { producer: ROOT })],
      },
      ['flux-force-enabled'],
    ],
    [
      'flags HelmRelease upgrade force turned on',
      { base: [helmRelease(PODINFO)], head: [helmRelease(PODINFO, { upgrade: { force: true } })] },
      ['flux-force-enabled'],
    ],
    [
      'stays quiet when force was already on',
      {
        base: [place(kustomization(APPS, { force: true }), { producer: ROOT })],
        head: [place(kustomization(APPS, { force: true, timeout: '5m' }), { producer: ROOT })],
      },
      [],
    ],
    [
      'flags a dependsOn that names a producer this change removes',
      {
        base: [],
        head: [],
        baseProducers: withInfra({ dependsOn: [INFRA] }),
        headProducers: withApps({ dependsOn: [INFRA] }),
      },
      ['flux-dependency-removed'],
    ],
    [
      'stays quiet when the dependency stays',
      {
        base: [],
        head: [],
        baseProducers: withInfra({ dependsOn: [INFRA] }),
        headProducers: withInfra({ dependsOn: [INFRA] }),
      },
      [],
    ],
    [
      'stays quiet about a dependency that was already missing at base',
      {
        base: [],
        head: [],
        baseProducers: withApps({ dependsOn: [INFRA] }),
        headProducers: withApps({ dependsOn: [INFRA] }),
      },
      [],
    ],
    [
      'stays quiet for an unrelated change',
      { base: [deployment('web')], head: [deployment('web', { replicas: 5 })] },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'flux')).toEqual(expected);
  });

  it('reports a suspension at the line the producer is defined', () => {
    const top = (suspend: boolean) => [
      producer(ROOT, {
        suspend,
        definedIn: { file: 'clusters/home/flux-system/gotk-sync.yaml', line: 27 },
      }),
    ];
    const [finding] = findingsOf(
      { base: [], head: [], baseProducers: top(false), headProducers: top(true) },
      'flux-suspended',
    );
    expect(finding).toEqual({
      rule: 'flux-suspended',
      level: 'caution',
      cluster: 'home',
      resource: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
      message: expect.stringContaining('no change to what it manages rolls out'),
      file: 'clusters/home/flux-system/gotk-sync.yaml',
      line: 27,
    });
  });

  it('counts the changes a suspended producer holds back', () => {
    const [finding] = findingsOf(
      {
        base: [cm('a'), cm('b')],
        head: [cm('a', '2'), cm('b', '2'), cm('c')],
        baseProducers: withApps({ suspend: true }),
        headProducers: withApps({ suspend: true }),
      },
      'flux-change-while-suspended',
    );
    expect(finding?.message).toContain(
      '3 changes under Kustomization flux-system/apps do not roll out',
    );
    expect(finding?.producer).toEqual(ROOT);
  });

  it('names the orphaned objects and why they stay', () => {
    const [finding] = findingsOf(
      {
        base: [cm('a'), cm('b')],
        head: [],
        baseProducers: withApps({ prune: false }),
        headProducers: withApps({ prune: false }),
      },
      'flux-removal-orphaned',
    );
    expect(finding?.message).toBe(
      'ConfigMap web/a, ConfigMap web/b leave Git but stay in the cluster, unmanaged: Kustomization flux-system/apps has prune off.',
    );
  });

  it('rates a dependency on a removed producer as danger', () => {
    const [finding] = findingsOf(
      {
        base: [],
        head: [],
        baseProducers: withInfra({ dependsOn: [INFRA] }),
        headProducers: withApps({ dependsOn: [INFRA] }),
      },
      'flux-dependency-removed',
    );
    expect(finding?.level).toBe('danger');
    expect(finding?.message).toContain('Kustomization flux-system/infra');
  });
});
