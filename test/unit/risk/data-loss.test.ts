import { describe, expect, it } from 'vitest';
import {
  APPS,
  DEFAULT_PRODUCERS,
  PODINFO,
  ROOT,
  findingsOf,
  fired,
  namespace,
  obj,
  place,
  producer,
  pvc,
  statefulSet,
  type Scenario,
} from './scenario.js';

const noPrune = [
  producer(ROOT, { path: './clusters/home' }),
  producer(APPS, { definedIn: { parent: ROOT }, prune: false }),
  producer(PODINFO, { definedIn: { parent: APPS } }),
];
const crd = obj(
  'apiextensions.k8s.io/v1',
  'CustomResourceDefinition',
  'widgets.example.com',
  undefined,
  {
    spec: { group: 'example.com' },
  },
);
const pv = obj('v1', 'PersistentVolume', 'pv-1', undefined, {
  spec: { persistentVolumeReclaimPolicy: 'Delete' },
});
const configMap = obj('v1', 'ConfigMap', 'settings', 'web', { data: { a: '1' } });

describe('data loss', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a removed StatefulSet under a pruning Kustomization as data loss',
      { base: [statefulSet('pg')], head: [] },
      ['stateful-data-deleted'],
    ],
    [
      'flags a removed PersistentVolumeClaim under a pruning Kustomization as data loss',
      { base: [pvc('pg-0')], head: [] },
      ['stateful-data-deleted'],
    ],
    [
      'flags a removed Namespace as data loss',
      { base: [namespace('data')], head: [] },
      ['stateful-data-deleted'],
    ],
    [
      'flags a removed CustomResourceDefinition as data loss',
      { base: [crd], head: [] },
      ['stateful-data-deleted'],
    ],
    [
      'flags a removed PersistentVolume as data loss',
      { base: [pv], head: [] },
      ['stateful-data-deleted'],
    ],
    [
      'flags a removed PersistentVolumeClaim from a HelmRelease as deleted by helm',
      { base: [place(pvc('pg-0'), { producer: PODINFO })], head: [] },
      ['stateful-data-deleted'],
    ],
    [
      'calls a removed PersistentVolumeClaim under a non-pruning Kustomization orphaned',
      { base: [pvc('pg-0')], head: [], baseProducers: noPrune, headProducers: noPrune },
      ['stateful-data-orphaned'],
    ],
    [
      'judges pruning by the Kustomization as it runs after the merge',
      { base: [pvc('pg-0')], head: [], headProducers: noPrune },
      ['stateful-data-orphaned'],
    ],
    [
      'calls a removed claim with prune disabled on it orphaned',
      {
        base: [
          obj(
            'v1',
            'PersistentVolumeClaim',
            'pg-0',
            'data',
            {},
            {
              annotations: { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' },
            },
          ),
        ],
        head: [],
      },
      ['stateful-data-orphaned'],
    ],
    [
      'calls a removed claim with a helm keep policy orphaned',
      {
        base: [
          place(
            obj(
              'v1',
              'PersistentVolumeClaim',
              'pg-0',
              'data',
              {},
              { annotations: { 'helm.sh/resource-policy': 'keep' } },
            ),
            { producer: PODINFO },
          ),
        ],
        head: [],
      },
      ['stateful-data-orphaned'],
    ],
    ['stays quiet when a ConfigMap is removed', { base: [configMap], head: [] }, []],
    ['stays quiet when a claim is added', { base: [], head: [pvc('pg-0')] }, []],
    [
      'stays quiet when a claim grows',
      { base: [pvc('pg-0', '10Gi')], head: [pvc('pg-0', '20Gi')] },
      [],
    ],
    [
      'flags a PersistentVolumeClaim that shrinks',
      { base: [pvc('pg-0', '10Gi')], head: [pvc('pg-0', '5000Mi')] },
      ['volume-claim-shrunk'],
    ],
    [
      'stays quiet when a claim keeps its size in other units',
      { base: [pvc('pg-0', '1Gi')], head: [pvc('pg-0', '1024Mi')] },
      [],
    ],
    [
      'flags a removed HelmRelease with the objects it applied',
      {
        base: [place(configMap, { producer: PODINFO })],
        head: [],
        headProducers: DEFAULT_PRODUCERS.slice(0, 2),
      },
      ['producer-removed'],
    ],
    [
      'flags a removed Kustomization',
      {
        base: [configMap],
        head: [],
        headProducers: [DEFAULT_PRODUCERS[0]!, producer(PODINFO, { definedIn: { parent: ROOT } })],
      },
      ['producer-removed'],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'data-loss')).toEqual(expected);
  });

  it('says "deleted" and who deletes, for a claim under a pruning Kustomization', () => {
    const [finding] = findingsOf({ base: [pvc('pg-0')], head: [] }, 'stateful-data-deleted');
    expect(finding).toMatchObject({
      level: 'danger',
      cluster: 'home',
      resource: { kind: 'PersistentVolumeClaim', namespace: 'data', name: 'pg-0' },
      producer: APPS,
      file: 'apps/persistentvolumeclaim-pg-0.yaml',
    });
    expect(finding?.message).toContain('is deleted');
    expect(finding?.message).toContain('Kustomization flux-system/apps prunes it');
  });

  it('says "orphaned" for a claim under a non-pruning Kustomization', () => {
    const [finding] = findingsOf(
      { base: [pvc('pg-0')], head: [], baseProducers: noPrune, headProducers: noPrune },
      'stateful-data-orphaned',
    );
    expect(finding?.level).toBe('caution');
    expect(finding?.message).toContain('is orphaned');
    expect(finding?.message).toContain('prune off');
  });

  it('counts the objects a removed HelmRelease had at base', () => {
    const [finding] = findingsOf(
      {
        base: [
          place(configMap, { producer: PODINFO }),
          place(obj('v1', 'Service', 'podinfo', 'podinfo'), { producer: PODINFO }),
          place(obj('apps/v1', 'Deployment', 'podinfo', 'podinfo'), { producer: PODINFO }),
        ],
        head: [],
        headProducers: DEFAULT_PRODUCERS.slice(0, 2),
      },
      'producer-removed',
    );
    expect(finding).toMatchObject({
      level: 'caution',
      resource: { kind: 'HelmRelease', namespace: 'podinfo', name: 'podinfo' },
      producer: APPS,
    });
    expect(finding?.message).toContain('3 objects go with it');
  });

  it('says the objects of a removed non-pruning Kustomization stay', () => {
    const [finding] = findingsOf(
      {
        base: [configMap],
        head: [],
        baseProducers: noPrune,
        headProducers: [DEFAULT_PRODUCERS[0]!, producer(PODINFO, { definedIn: { parent: ROOT } })],
      },
      'producer-removed',
    );
    expect(finding?.message).toContain('its 1 object stays in the cluster');
  });

  it('names both sizes of a shrinking claim', () => {
    const [finding] = findingsOf(
      { base: [pvc('pg-0', '10Gi')], head: [pvc('pg-0', '5Gi')] },
      'volume-claim-shrunk',
    );
    expect(finding?.level).toBe('danger');
    expect(finding?.message).toContain('from 10Gi to 5Gi');
  });

  it.each<[string, Scenario, string]>([
    [
      'a HelmRelease whose parent has prune off',
      {
        base: [place(configMap, { producer: PODINFO })],
        head: [],
        headProducers: [
          DEFAULT_PRODUCERS[0]!,
          producer(APPS, { definedIn: { parent: ROOT }, prune: false }),
        ],
      },
      'its parent Kustomization flux-system/apps has prune off',
    ],
    [
      'a Kustomization that carries prune: disabled',
      {
        base: [
          configMap,
          place(
            obj(
              'kustomize.toolkit.fluxcd.io/v1',
              'Kustomization',
              'apps',
              'flux-system',
              {},
              {
                annotations: { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' },
              },
            ),
            { producer: ROOT },
          ),
        ],
        head: [],
        headProducers: [DEFAULT_PRODUCERS[0]!, producer(PODINFO, { definedIn: { parent: ROOT } })],
      },
      'it carries kustomize.toolkit.fluxcd.io/prune: disabled',
    ],
  ])(
    'says a removed producer stays in the cluster when nothing deletes it: %s',
    (_name, scenario, why) => {
      const [finding] = findingsOf(scenario, 'producer-removed');
      expect(finding?.message).toContain('leaves Git but stays in the cluster');
      expect(finding?.message).toContain(why);
    },
  );
});
