/**
 * A chart the PR points at another registry or repository: chart-major-bump names both
 * sources when the version jumps a major too, and the move alone is neither a finding nor
 * routine, so a reviewer sees the new source.
 */
import { describe, expect, it } from 'vitest';
import { computeVerdict } from '../../../src/risk/compute-verdict.js';
import { cluster, evaluate, findingsOf, obj, pairDiff, type Scenario } from './scenario.js';

const GHCR = 'oci://ghcr.io/foo/charts/app';
const MIRROR = 'oci://mirror.example/foo/charts/app';
const BITNAMI = 'https://charts.bitnami.com/bitnami';
const BITNAMI_MIRROR = 'https://mirror.example/bitnami';

const oci = (url: string, tag: string) =>
  obj('source.toolkit.fluxcd.io/v1', 'OCIRepository', 'app', 'web', {
    spec: { interval: '15m', url, ref: { tag } },
  });

const viaRef = obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'web', 'web', {
  spec: { interval: '1h', chartRef: { kind: 'OCIRepository', name: 'app' } },
});

const repository = (name: string, url: string) =>
  obj('source.toolkit.fluxcd.io/v1', 'HelmRepository', name, 'flux-system', {
    spec: { interval: '1h', url },
  });

const fromRepository = (repo: string, version: string) =>
  obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'cache', 'data', {
    spec: {
      interval: '1h',
      chart: {
        spec: {
          chart: 'redis',
          version,
          sourceRef: { kind: 'HelmRepository', name: repo, namespace: 'flux-system' },
        },
      },
    },
  });

const repositories = [repository('bitnami', BITNAMI), repository('mirror', BITNAMI_MIRROR)];

describe('chart-major-bump on a chart that moves to another source', () => {
  it.each<[string, Scenario, string]>([
    [
      'an OCIRepository pointed at a mirror and a new major tag',
      { base: [oci(GHCR, '1.2.3'), viaRef], head: [oci(MIRROR, '2.0.0'), viaRef] },
      `OCIRepository web/app moves chart app from 1.2.3 (${GHCR}) to 2.0.0 (${MIRROR}) for HelmRelease/web/web, a new major version`,
    ],
    [
      "a HelmRelease's chart taken from another HelmRepository at a new major version",
      {
        base: [...repositories, fromRepository('bitnami', '17.3.2')],
        head: [...repositories, fromRepository('mirror', '18.0.0')],
      },
      `HelmRelease data/cache moves chart redis from 17.3.2 (${BITNAMI}) to 18.0.0 (${BITNAMI_MIRROR}), a new major version`,
    ],
  ])('names both sources for %s', (_name, scenario, message) => {
    const [finding] = findingsOf(scenario, 'chart-major-bump');
    expect(finding?.message).toContain(message);
  });

  it('names no source when the chart stays where it was', () => {
    const [finding] = findingsOf(
      { base: [oci(GHCR, '1.2.3'), viaRef], head: [oci(GHCR, '2.0.0'), viaRef] },
      'chart-major-bump',
    );
    expect(finding?.message).toContain(
      'moves chart app from 1.2.3 to 2.0.0 for HelmRelease/web/web, a new major version',
    );
  });
});

describe('a chart moved to a mirror at its version', () => {
  const scenario: Scenario = {
    base: [oci(GHCR, '1.2.3'), viaRef],
    head: [oci(MIRROR, '1.2.3'), viaRef],
  };

  it('is no finding, and not routine', () => {
    expect(evaluate(scenario)).toEqual([]);
    const diff = pairDiff('home', cluster(scenario.base), cluster(scenario.head));
    expect(computeVerdict([], diff.changes, 0)).toMatchObject({ level: 'none', routine: false });
  });
});
