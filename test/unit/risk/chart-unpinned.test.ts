/**
 * chart-unpinned: a chart version that was pinned becomes a range, on a HelmRelease's own
 * chart spec, an OCIRepository's ref or a HelmChart's version. Fixtures are shaped as
 * home-ops repositories write them (grafana from a HelmRepository or as an OCI artifact).
 */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/model/render.js';
import { findingsOf, fired, obj, type Scenario } from './scenario.js';

const DIGEST = 'sha256:' + 'c'.repeat(64);

const repository = obj('source.toolkit.fluxcd.io/v1', 'HelmRepository', 'grafana', 'flux-system', {
  spec: { interval: '2h', url: 'https://grafana.github.io/helm-charts' },
});

/** A HelmRelease whose own chart spec picks the version; none at all when undefined. */
const release = (version?: string): Manifest =>
  obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'grafana', 'observability', {
    spec: {
      interval: '1h',
      chart: {
        spec: {
          chart: 'grafana',
          ...(version === undefined ? {} : { version }),
          sourceRef: { kind: 'HelmRepository', name: 'grafana', namespace: 'flux-system' },
        },
      },
      values: { replicas: 1 },
    },
  });

const ociRepository = (ref: object): Manifest =>
  obj('source.toolkit.fluxcd.io/v1', 'OCIRepository', 'grafana', 'observability', {
    spec: {
      interval: '5m',
      layerSelector: {
        mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip',
        operation: 'copy',
      },
      ref,
      url: 'oci://ghcr.io/grafana/helm-charts/grafana',
    },
  });
const viaOci = obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'grafana', 'observability', {
  spec: { interval: '1h', chartRef: { kind: 'OCIRepository', name: 'grafana' } },
});
const oci = (ref: object): Manifest[] => [ociRepository(ref), viaOci];

const helmChart = (version: string): Manifest[] => [
  repository,
  obj('source.toolkit.fluxcd.io/v1', 'HelmChart', 'redis', 'database', {
    spec: {
      chart: 'redis',
      version,
      sourceRef: { kind: 'HelmRepository', name: 'grafana', namespace: 'flux-system' },
    },
  }),
  obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'redis', 'database', {
    spec: { interval: '1h', chartRef: { kind: 'HelmChart', name: 'redis' } },
  }),
];

const pinned = (from: string | undefined, to: string | undefined): Scenario => ({
  base: [repository, release(from)],
  head: [repository, release(to)],
});

describe('chart-unpinned', () => {
  it.each<[string, Scenario, string[]]>([
    ['flags a HelmRelease moved from 9.1.11 to 9.x', pinned('9.1.11', '9.x'), ['chart-unpinned']],
    ['flags a pinned version becoming >=1.0.0', pinned('9.1.11', '>=1.0.0'), ['chart-unpinned']],
    ['flags a pinned version becoming ~1.2', pinned('1.2.3', '~1.2'), ['chart-unpinned']],
    ['flags a pinned version becoming *', pinned('9.1.11', '*'), ['chart-unpinned']],
    ['flags a pinned version that is dropped', pinned('9.1.11', undefined), ['chart-unpinned']],
    [
      'flags an OCIRepository moved from a tag to a semver range',
      { base: oci({ tag: '9.1.11' }), head: oci({ semver: '9.x' }) },
      ['chart-unpinned'],
    ],
    [
      'flags an OCIRepository pinned by digest moved to a semver range',
      { base: oci({ tag: `9.1.11@${DIGEST}`, digest: DIGEST }), head: oci({ semver: '>=9.1.11' }) },
      ['chart-unpinned'],
    ],
    [
      'flags an OCIRepository whose ref is dropped (latest)',
      { base: oci({ tag: '9.1.11' }), head: oci({}) },
      ['chart-unpinned'],
    ],
    [
      'flags a HelmChart moved from a version to a range',
      { base: helmChart('20.6.2'), head: helmChart('20.x') },
      ['chart-unpinned'],
    ],
    ['stays quiet for a pinned version bump', pinned('9.1.11', '9.2.0'), []],
    ['stays quiet when a range becomes pinned', pinned('9.x', '9.2.0'), []],
    ['stays quiet when a range stays a range', pinned('9.x', '~9.1'), []],
    [
      'stays quiet for an OCIRepository semver that names one version',
      { base: oci({ tag: '9.1.11' }), head: oci({ semver: '9.1.11' }) },
      [],
    ],
    [
      'stays quiet for a new HelmRelease with a range',
      { base: [repository], head: [repository, release('9.x')] },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'supply-chain').filter((id) => id !== 'image-unpinned')).toEqual(
      expected,
    );
  });

  it('says Flux upgrades within the range without a pull request', () => {
    const [finding] = findingsOf(pinned('9.1.11', '9.x'), 'chart-unpinned');
    expect(finding).toMatchObject({
      level: 'caution',
      resource: { kind: 'HelmRelease', namespace: 'observability', name: 'grafana' },
    });
    expect(finding?.message).toBe(
      'HelmRelease observability/grafana moves chart grafana from the pinned version 9.1.11 to 9.x: Flux installs the newest version it allows as soon as one is published, with no pull request to review it.',
    );
  });

  it('says when the range takes in new major versions, and names the releases of a source', () => {
    const [finding] = findingsOf(
      { base: oci({ tag: `9.1.11@${DIGEST}`, digest: DIGEST }), head: oci({ semver: '>=9.1.11' }) },
      'chart-unpinned',
    );
    expect(finding?.resource).toEqual({
      kind: 'OCIRepository',
      namespace: 'observability',
      name: 'grafana',
    });
    expect(finding?.message).toContain('for HelmRelease/observability/grafana');
    expect(finding?.message).toContain('new major versions included');
  });
});
