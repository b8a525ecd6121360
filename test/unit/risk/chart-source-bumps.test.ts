/**
 * Chart bumps through the sources a HelmRelease's chartRef names (OCIRepository, HelmChart):
 * chart-major-bump judges them, a bump alone is routine, and one bump copied into every
 * app's OCIRepository is not a wide change.
 */
import { describe, expect, it } from 'vitest';
import type { Manifest, ProducerRef } from '../../../src/model/render.js';
import { computeVerdict } from '../../../src/risk/compute-verdict.js';
import { isRoutineChange } from '../../../src/risk/routine-change.js';
import {
  cluster,
  evaluate,
  findingsOf,
  fired,
  obj,
  pairDiff,
  place,
  producer,
  DEFAULT_PRODUCERS,
  type Scenario,
} from './scenario.js';

const URL = 'oci://ghcr.io/bjw-s-labs/helm/app-template';

function app(name: string): ProducerRef {
  return { kind: 'Kustomization', namespace: 'flux-system', name };
}

const oci = (name: string, namespace: string, ref: object, spec: object = {}) =>
  obj('source.toolkit.fluxcd.io/v1', 'OCIRepository', name, namespace, {
    spec: { interval: '15m', url: URL, ref, ...spec },
  });

const helmChart = (version: string) =>
  obj('source.toolkit.fluxcd.io/v1', 'HelmChart', 'redis', 'data', {
    spec: { chart: 'redis', version, sourceRef: { kind: 'HelmRepository', name: 'bitnami' } },
  });

const release = (name: string, namespace: string, spec: object) =>
  obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', name, namespace, {
    spec: { interval: '1h', ...spec },
  });

const viaRef = (name: string, namespace: string, kind = 'OCIRepository', to = 'app-template') =>
  release(name, namespace, { chartRef: { kind, name: to } });

/** An app as a fleet lays it out: its own Kustomization, OCIRepository and release. */
function fleet(count: number, ref: object, values: object = {}) {
  const names = Array.from({ length: count }, (_, i) => `app-${i}`);
  const objects = names.flatMap((n) => [
    place(oci('app-template', n, ref), { producer: app(n) }),
    place(release(n, n, { chartRef: { kind: 'OCIRepository', name: 'app-template' }, values }), {
      producer: app(n),
    }),
  ]);
  const producers = [...DEFAULT_PRODUCERS, ...names.map((n) => producer(app(n)))];
  return { objects, producers };
}

function fleetScenario(count: number, from: [object, object], to: [object, object]): Scenario {
  const base = fleet(count, ...from);
  const head = fleet(count, ...to);
  return {
    base: base.objects,
    head: head.objects,
    baseProducers: base.producers,
    headProducers: head.producers,
  };
}

const users = (tag: string): Manifest[] => [
  oci('app-template', 'media', { tag }),
  viaRef('sonarr', 'media'),
  viaRef('radarr', 'media'),
];

describe('chart-major-bump through chart sources', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a major OCIRepository tag bump',
      { base: users('3.7.3'), head: users('4.0.0') },
      ['chart-major-bump'],
    ],
    [
      'stays quiet for a minor OCIRepository tag bump',
      { base: users('3.7.3'), head: users('3.8.0') },
      [],
    ],
    [
      'flags a semver range that moves to a new major',
      {
        base: [
          oci('app-template', 'media', { semver: '>=3.0.0 <4.0.0' }),
          viaRef('sonarr', 'media'),
        ],
        head: [
          oci('app-template', 'media', { semver: '>=4.0.0 <5.0.0' }),
          viaRef('sonarr', 'media'),
        ],
      },
      ['chart-major-bump'],
    ],
    [
      'flags a major tag bump that also pins a digest',
      {
        base: users('3.7.3'),
        head: [
          oci('app-template', 'media', { tag: '4.0.0', digest: `sha256:${'ab'.repeat(32)}` }),
          viaRef('sonarr', 'media'),
        ],
      },
      ['chart-major-bump'],
    ],
    [
      'flags a major HelmChart version bump that a chartRef names',
      {
        base: [helmChart('17.3.2'), viaRef('cache', 'data', 'HelmChart', 'redis')],
        head: [helmChart('18.0.0'), viaRef('cache', 'data', 'HelmChart', 'redis')],
      },
      ['chart-major-bump'],
    ],
    [
      'stays quiet for an OCIRepository that no release installs',
      {
        base: [oci('app-template', 'media', { tag: '3.7.3' })],
        head: [oci('app-template', 'media', { tag: '4.0.0' })],
      },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'supply-chain')).toEqual(expected);
  });

  it('reports the bump once, on the OCIRepository, naming the releases it reaches', () => {
    const labelled = (version: string) =>
      place(
        obj(
          'apps/v1',
          'Deployment',
          'sonarr',
          'media',
          { spec: { replicas: version === '4.0.0' ? 2 : 1 } },
          {
            labels: { 'helm.sh/chart': `app-template-${version}` },
          },
        ),
        { producer: { kind: 'HelmRelease', namespace: 'media', name: 'sonarr' } },
      );
    const findings = findingsOf(
      {
        base: [...users('3.7.3'), labelled('3.7.3')],
        head: [...users('4.0.0'), labelled('4.0.0')],
      },
      'chart-major-bump',
    );
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      level: 'caution',
      resource: { kind: 'OCIRepository', namespace: 'media', name: 'app-template' },
      file: 'apps/ocirepository-app-template.yaml',
    });
    expect(findings[0]?.message).toContain(
      'moves chart app-template from 3.7.3 to 4.0.0 for HelmRelease/media/radarr, HelmRelease/media/sonarr',
    );
  });
});

describe('a chart bump alone is routine', () => {
  const verdictOf = (scenario: Scenario) => {
    const base = cluster(scenario.base, scenario.baseProducers);
    const head = cluster(scenario.head, scenario.headProducers);
    const diff = pairDiff('home', base, head);
    return computeVerdict(evaluate(scenario), diff.changes, 0);
  };

  it.each<[string, Manifest, Manifest, boolean]>([
    [
      'an OCIRepository tag',
      oci('a', 'web', { tag: '1.0.0' }),
      oci('a', 'web', { tag: '1.1.0' }),
      true,
    ],
    [
      'an OCIRepository semver range',
      oci('a', 'web', { semver: '1.x' }),
      oci('a', 'web', { semver: '1.2.x' }),
      true,
    ],
    [
      'a digest pinned to an OCIRepository',
      oci('a', 'web', { tag: '1.0.0' }),
      oci('a', 'web', { tag: '1.0.0', digest: `sha256:${'ab'.repeat(32)}` }),
      true,
    ],
    ['a HelmChart version', helmChart('17.3.2'), helmChart('17.4.0'), true],
    [
      'not an OCIRepository url',
      oci('a', 'web', { tag: '1.0.0' }),
      oci('a', 'web', { tag: '1.0.0' }, { url: 'oci://ghcr.io/other/chart' }),
      false,
    ],
    [
      'not a tag that becomes a semver range',
      oci('a', 'web', { tag: '1.0.0' }),
      oci('a', 'web', { semver: '1.x' }),
      false,
    ],
    [
      'not an OCIRepository layer selector',
      oci('a', 'web', { tag: '1.0.0' }),
      oci('a', 'web', { tag: '1.1.0' }, { layerSelector: { mediaType: 'x', operation: 'copy' } }),
      false,
    ],
  ])('%s: %s', (_what, before, after, routine) => {
    const [change] = pairDiff('home', cluster([before]), cluster([after])).changes;
    expect(change && isRoutineChange(change)).toBe(routine);
  });

  it('calls 12 apps whose OCIRepositories move to one new minor version routine, not wide', () => {
    const scenario = fleetScenario(12, [{ tag: '3.7.3' }, {}], [{ tag: '3.8.0' }, {}]);
    expect(fired(scenario, 'breadth')).toEqual([]);
    expect(verdictOf(scenario)).toMatchObject({ level: 'none', routine: true });
  });

  it('still calls the same values patch in 12 HelmReleases a wide change', () => {
    const scenario = fleetScenario(
      12,
      [{ tag: '3.7.3' }, { strategy: 'install' }],
      [{ tag: '3.7.3' }, {}],
    );
    expect(fired(scenario, 'breadth')).toEqual(['wide-change']);
    expect(verdictOf(scenario).routine).toBe(false);
  });
});
