/**
 * A chart that a PR points at another registry or repository is one row of the chart
 * table, with the source it leaves (fromSource) beside the one it comes from at head,
 * whether or not its version moves too.
 */
import { describe, expect, it } from 'vitest';
import type { ChartChange } from '../../../src/model/index.js';
import type { Manifest, RenderedObject } from '../../../src/model/render.js';
import { diff, kustomization, rendered } from './build-cluster.js';

const GHCR = 'oci://ghcr.io/foo/charts/app';
const MIRROR = 'oci://mirror.example/foo/charts/app';
const OTHER_MIRROR = 'oci://other.example/foo/charts/app';

function flux(kind: string, group: string, name: string, namespace: string, spec: object) {
  return {
    apiVersion: `${group}/v1`,
    kind,
    metadata: { name, namespace },
    spec: { interval: '15m', ...spec },
  };
}

const oci = (name: string, namespace: string, url: string, tag: string): Manifest =>
  flux('OCIRepository', 'source.toolkit.fluxcd.io', name, namespace, { url, ref: { tag } });

const helmRepository = (name: string, url: string): Manifest =>
  flux('HelmRepository', 'source.toolkit.fluxcd.io', name, 'flux-system', { url });

const viaRef = (name: string, namespace: string, to: string): Manifest =>
  flux('HelmRelease', 'helm.toolkit.fluxcd.io', name, namespace, {
    chartRef: { kind: 'OCIRepository', name: to },
  });

const fromRepository = (name: string, repository: string, version: string): Manifest =>
  flux('HelmRelease', 'helm.toolkit.fluxcd.io', name, 'data', {
    chart: {
      spec: {
        chart: 'redis',
        version,
        sourceRef: { kind: 'HelmRepository', name: repository, namespace: 'flux-system' },
      },
    },
  });

/** One Kustomization per namespace, as a fleet that gives each app its own source. */
const app = (manifest: Manifest): RenderedObject => {
  const namespace = (manifest['metadata'] as { namespace: string }).namespace;
  return rendered(manifest, kustomization(namespace));
};

const charts = (base: Manifest[], head: Manifest[]): ChartChange[] | undefined =>
  diff(base.map(app), head.map(app)).summary.charts;

describe('chart source moves in the summary', () => {
  it.each<[string, Manifest[], Manifest[], ChartChange[]]>([
    [
      'an OCIRepository pointed at a mirror at the same tag as one move of source',
      [oci('app', 'web', GHCR, '1.2.3'), viaRef('web', 'web', 'app')],
      [oci('app', 'web', MIRROR, '1.2.3'), viaRef('web', 'web', 'app')],
      [
        {
          chart: 'app',
          source: MIRROR,
          fromSource: GHCR,
          from: '1.2.3',
          to: '1.2.3',
          producers: ['HelmRelease/web/web'],
        },
      ],
    ],
    [
      'an OCIRepository pointed at a mirror at another tag as one move of source and version',
      [oci('app', 'web', GHCR, '1.2.3'), viaRef('web', 'web', 'app')],
      [oci('app', 'web', MIRROR, '1.3.0'), viaRef('web', 'web', 'app')],
      [
        {
          chart: 'app',
          source: MIRROR,
          fromSource: GHCR,
          from: '1.2.3',
          to: '1.3.0',
          producers: ['HelmRelease/web/web'],
        },
      ],
    ],
    [
      'a release that swaps its OCIRepository for one on another registry',
      [oci('app', 'web', GHCR, '1.2.3'), viaRef('web', 'web', 'app')],
      [oci('app-mirror', 'web', MIRROR, '1.2.3'), viaRef('web', 'web', 'app-mirror')],
      [
        {
          chart: 'app',
          source: MIRROR,
          fromSource: GHCR,
          from: '1.2.3',
          to: '1.2.3',
          producers: ['HelmRelease/web/web'],
        },
      ],
    ],
    [
      "a HelmRelease's chart taken from another HelmRepository",
      [
        helmRepository('bitnami', 'https://charts.bitnami.com/bitnami'),
        helmRepository('mirror', 'https://mirror.example/bitnami'),
        fromRepository('cache', 'bitnami', '18.0.0'),
      ],
      [
        helmRepository('bitnami', 'https://charts.bitnami.com/bitnami'),
        helmRepository('mirror', 'https://mirror.example/bitnami'),
        fromRepository('cache', 'mirror', '18.0.0'),
      ],
      [
        {
          chart: 'redis',
          source: 'https://mirror.example/bitnami',
          fromSource: 'https://charts.bitnami.com/bitnami',
          from: '18.0.0',
          to: '18.0.0',
          producers: ['HelmRelease/data/cache'],
        },
      ],
    ],
    [
      'a chart one release drops and another adds elsewhere as a removal and a new chart',
      [oci('app', 'web', GHCR, '1.2.3'), viaRef('web', 'web', 'app')],
      [oci('app', 'api', MIRROR, '1.2.3'), viaRef('api', 'api', 'app')],
      [
        { chart: 'app', source: GHCR, from: '1.2.3', producers: ['HelmRelease/web/web'] },
        { chart: 'app', source: MIRROR, to: '1.2.3', producers: ['HelmRelease/api/api'] },
      ],
    ],
  ])('reports %s', (_case, base, head, expected) => {
    expect(charts(base, head)).toEqual(expected);
  });

  it('merges many OCIRepositories moved to one mirror into one row naming every release', () => {
    const names = ['a', 'b', 'c'];
    const side = (url: string) =>
      names.flatMap((n) => [oci('app', n, url, '1.2.3'), viaRef(n, n, 'app')]);
    expect(charts(side(GHCR), side(MIRROR))).toEqual([
      {
        chart: 'app',
        source: MIRROR,
        fromSource: GHCR,
        from: '1.2.3',
        to: '1.2.3',
        producers: names.map((n) => `HelmRelease/${n}/${n}`),
      },
    ]);
  });

  it('pairs the old source with the new one sharing most of its releases, whatever the order', () => {
    const base = [
      oci('app', 'web', GHCR, '1.2.3'),
      viaRef('x', 'web', 'app'),
      viaRef('y', 'web', 'app'),
      viaRef('z', 'web', 'app'),
    ];
    const head = [
      oci('one', 'web', MIRROR, '1.2.3'),
      oci('two', 'web', OTHER_MIRROR, '1.2.3'),
      viaRef('x', 'web', 'one'),
      viaRef('y', 'web', 'two'),
      viaRef('z', 'web', 'two'),
    ];
    const expected: ChartChange[] = [
      { chart: 'app', source: MIRROR, to: '1.2.3', producers: ['HelmRelease/web/x'] },
      {
        chart: 'app',
        source: OTHER_MIRROR,
        fromSource: GHCR,
        from: '1.2.3',
        to: '1.2.3',
        producers: ['HelmRelease/web/x', 'HelmRelease/web/y', 'HelmRelease/web/z'],
      },
    ];
    expect(charts(base, head)).toEqual(expected);
    expect(charts([...base].reverse(), [...head].reverse())).toEqual(expected);
  });
});
