/**
 * Which charts a PR moves, as the summary's chart table says: OCIRepository refs that
 * releases' chartRefs name, HelmChart versions, HelmReleases' own chart versions, merged
 * per chart, source and versions with the releases that install them.
 */
import { describe, expect, it } from 'vitest';
import type { ChartChange } from '../../../src/model/index.js';
import type { Manifest, RenderedObject } from '../../../src/model/render.js';
import { diff, kustomization, rendered } from './build-cluster.js';

const APP_TEMPLATE = 'oci://ghcr.io/bjw-s-labs/helm/app-template';
const DIGEST = `sha256:${'ab'.repeat(32)}`;

function source(kind: string, name: string, namespace: string, spec: object): Manifest {
  return {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind,
    metadata: { name, namespace },
    spec: { interval: '15m', ...spec },
  };
}

const oci = (name: string, namespace: string, ref: object, url = APP_TEMPLATE) =>
  source('OCIRepository', name, namespace, { url, ref });

function release(name: string, namespace: string, spec: object): Manifest {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name, namespace },
    spec: { interval: '1h', ...spec },
  };
}

const viaRef = (name: string, namespace: string, kind = 'OCIRepository', to = name) =>
  release(name, namespace, { chartRef: { kind, name: to } });

const fromRepository = (name: string, version?: string) =>
  release(name, 'data', {
    chart: {
      spec: {
        chart: 'redis',
        ...(version !== undefined && { version }),
        sourceRef: { kind: 'HelmRepository', name: 'bitnami', namespace: 'flux-system' },
      },
    },
  });

const bitnami = source('HelmRepository', 'bitnami', 'flux-system', {
  url: 'https://charts.bitnami.com/bitnami',
});

/** One Kustomization per app, as a fleet that gives each app its own OCIRepository. */
const app = (manifest: Manifest): RenderedObject => {
  const namespace = (manifest['metadata'] as { namespace: string }).namespace;
  return rendered(manifest, kustomization(namespace));
};

const charts = (base: Manifest[], head: Manifest[]): ChartChange[] | undefined =>
  diff(base.map(app), head.map(app)).summary.charts;

describe('chart changes in the summary', () => {
  it.each<[string, Manifest[], Manifest[], ChartChange[]]>([
    [
      'an OCIRepository tag bump, with the releases whose chartRef names it',
      [
        oci('app-template', 'media', { tag: '3.7.3' }),
        viaRef('sonarr', 'media', 'OCIRepository', 'app-template'),
        viaRef('radarr', 'media', 'OCIRepository', 'app-template'),
      ],
      [
        oci('app-template', 'media', { tag: '4.0.0' }),
        viaRef('sonarr', 'media', 'OCIRepository', 'app-template'),
        viaRef('radarr', 'media', 'OCIRepository', 'app-template'),
      ],
      [
        {
          chart: 'app-template',
          source: APP_TEMPLATE,
          from: '3.7.3',
          to: '4.0.0',
          producers: ['HelmRelease/media/radarr', 'HelmRelease/media/sonarr'],
        },
      ],
    ],
    [
      'a digest pinned beside the tag',
      [oci('web', 'web', { tag: '3.7.3' }), viaRef('web', 'web')],
      [oci('web', 'web', { tag: '3.7.3', digest: DIGEST }), viaRef('web', 'web')],
      [
        {
          chart: 'app-template',
          source: APP_TEMPLATE,
          from: '3.7.3',
          to: `3.7.3@${DIGEST}`,
          producers: ['HelmRelease/web/web'],
        },
      ],
    ],
    [
      'a semver range, and no ref at all read as latest',
      [oci('web', 'web', {}), viaRef('web', 'web')],
      [oci('web', 'web', { semver: '>=4.0.0 <5.0.0' }), viaRef('web', 'web')],
      [
        {
          chart: 'app-template',
          source: APP_TEMPLATE,
          from: 'latest',
          to: '>=4.0.0 <5.0.0',
          producers: ['HelmRelease/web/web'],
        },
      ],
    ],
    [
      "a HelmRelease's own chart version, from its HelmRepository's url",
      [bitnami, fromRepository('cache', '17.3.2')],
      [bitnami, fromRepository('cache', '18.0.0')],
      [
        {
          chart: 'redis',
          source: 'https://charts.bitnami.com/bitnami',
          from: '17.3.2',
          to: '18.0.0',
          producers: ['HelmRelease/data/cache'],
        },
      ],
    ],
    [
      "a HelmChart's version, with the releases whose chartRef names it",
      [
        bitnami,
        source('HelmChart', 'redis', 'data', {
          chart: 'redis',
          version: '17.x',
          sourceRef: { kind: 'HelmRepository', name: 'bitnami', namespace: 'flux-system' },
        }),
        viaRef('cache', 'data', 'HelmChart', 'redis'),
      ],
      [
        bitnami,
        source('HelmChart', 'redis', 'data', {
          chart: 'redis',
          version: '18.x',
          sourceRef: { kind: 'HelmRepository', name: 'bitnami', namespace: 'flux-system' },
        }),
        viaRef('cache', 'data', 'HelmChart', 'redis'),
      ],
      [
        {
          chart: 'redis',
          source: 'https://charts.bitnami.com/bitnami',
          from: '17.x',
          to: '18.x',
          producers: ['HelmRelease/data/cache'],
        },
      ],
    ],
    [
      'a new release as a new chart, from its HelmRepository identity when the cluster lacks it',
      [],
      [fromRepository('cache', '18.0.0')],
      [
        {
          chart: 'redis',
          source: 'HelmRepository/flux-system/bitnami',
          to: '18.0.0',
          producers: ['HelmRelease/data/cache'],
        },
      ],
    ],
    [
      'a release without a version as the latest (*)',
      [bitnami, fromRepository('cache', '17.3.2')],
      [bitnami, fromRepository('cache')],
      [
        {
          chart: 'redis',
          source: 'https://charts.bitnami.com/bitnami',
          from: '17.3.2',
          to: '*',
          producers: ['HelmRelease/data/cache'],
        },
      ],
    ],
    [
      'nothing for an OCIRepository that no release installs (a Kustomization source)',
      [oci('manifests', 'flux-system', { tag: '1.0.0' }, 'oci://ghcr.io/acme/manifests')],
      [oci('manifests', 'flux-system', { tag: '2.0.0' }, 'oci://ghcr.io/acme/manifests')],
      [],
    ],
    [
      'nothing when a release swaps one OCIRepository for another at the same version',
      [oci('a', 'web', { tag: '3.7.3' }), viaRef('web', 'web', 'OCIRepository', 'a')],
      [oci('b', 'web', { tag: '3.7.3' }), viaRef('web', 'web', 'OCIRepository', 'b')],
      [],
    ],
    [
      'a move when a release swaps to another OCIRepository of the same chart at another version',
      [oci('a', 'web', { tag: '3.7.3' }), viaRef('web', 'web', 'OCIRepository', 'a')],
      [oci('b', 'web', { tag: '4.0.0' }), viaRef('web', 'web', 'OCIRepository', 'b')],
      [
        {
          chart: 'app-template',
          source: APP_TEMPLATE,
          from: '3.7.3',
          to: '4.0.0',
          producers: ['HelmRelease/web/web'],
        },
      ],
    ],
  ])('reports %s', (_case, base, head, expected) => {
    expect(charts(base, head)).toEqual(expected);
  });

  it('merges one bump of many OCIRepositories into one row naming every release', () => {
    const names = Array.from({ length: 39 }, (_, i) => `app-${String(i).padStart(2, '0')}`);
    const side = (tag: string) =>
      names.flatMap((n) => [
        oci('app-template', n, { tag }),
        viaRef(n, n, 'OCIRepository', 'app-template'),
      ]);
    expect(charts(side('3.7.3'), side('4.1.0'))).toEqual([
      {
        chart: 'app-template',
        source: APP_TEMPLATE,
        from: '3.7.3',
        to: '4.1.0',
        producers: names.map((n) => `HelmRelease/${n}/${n}`),
      },
    ]);
  });

  it('hides a Secret value that a chart source quotes', () => {
    const secret: Manifest = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'registry', namespace: 'web' },
      stringData: { host: 'registry-7f3a9c.internal' },
    };
    const url = 'oci://registry-7f3a9c.internal/charts/web';
    const [change] =
      charts(
        [secret, oci('web', 'web', { tag: '1.0.0' }, url), viaRef('web', 'web')],
        [secret, oci('web', 'web', { tag: '1.1.0' }, url), viaRef('web', 'web')],
      ) ?? [];
    expect(change?.source).not.toContain('registry-7f3a9c.internal');
    expect(change).toMatchObject({ chart: 'web', from: '1.0.0', to: '1.1.0' });
  });
});
