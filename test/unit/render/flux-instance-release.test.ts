/**
 * The FluxInstance a HelmRelease of flux-operator's flux-instance chart renders, derived
 * from the release's values at discovery, and the bootstrap Kustomization it then gives.
 */
import { describe, expect, it } from 'vitest';
import { asRecord, objectMeta } from '../../../src/model/index.js';
import { fluxInstanceReleases } from '../../../src/render/flux/flux-instance-release.js';
import {
  type Discovery,
  type FoundObject,
  withInstanceSyncs,
} from '../../../src/render/flux/index.js';

const SYNC = {
  kind: 'GitRepository',
  url: 'https://github.com/example/fleet.git',
  ref: 'refs/heads/main',
  path: 'clusters/prod',
};

const CHART_URL = 'oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance';

function release(spec: Record<string, unknown>, namespace = 'flux-system'): FoundObject {
  return {
    manifest: {
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: { name: 'flux-instance', namespace },
      spec: {
        chartRef: { kind: 'OCIRepository', name: 'flux-instance' },
        values: { instance: { sync: SYNC } },
        ...spec,
      },
    },
    file: 'clusters/prod/flux/helmrelease.yaml',
    line: 4,
  };
}

function ociRepository(url: string, namespace = 'flux-system'): FoundObject {
  return {
    manifest: {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'OCIRepository',
      metadata: { name: 'flux-instance', namespace },
      spec: { url, ref: { tag: '0.20.0' } },
    },
    file: 'clusters/prod/flux/ocirepository.yaml',
    line: 1,
  };
}

function discovery(extra: Partial<Discovery>): Discovery {
  return {
    entry: 'clusters/prod',
    kustomizations: [],
    helmReleases: [],
    sources: [ociRepository(CHART_URL)],
    configData: [],
    instances: [],
    ...extra,
  };
}

/** `namespace/name sync-kind sync-url file:line` of each derived instance. */
function derived(found: Discovery): string[] {
  return fluxInstanceReleases(found).map(({ manifest, file, line }) => {
    const meta = objectMeta(manifest);
    const sync = asRecord(asRecord(manifest['spec'])['sync']);
    return `${meta.namespace}/${meta.name} ${String(sync['kind'])} ${String(sync['url'])} ${file}:${line}`;
  });
}

const AT = 'clusters/prod/flux/helmrelease.yaml:4';

describe('the FluxInstance a flux-instance HelmRelease renders', () => {
  it.each([
    [
      "a chartRef to the chart's OCIRepository",
      {},
      [],
      `flux-system/flux GitRepository ${SYNC.url} ${AT}`,
    ],
    [
      'the chart named in spec.chart',
      {
        chartRef: undefined,
        chart: {
          spec: { chart: 'flux-instance', sourceRef: { kind: 'HelmRepository', name: 'cp' } },
        },
      },
      [],
      `flux-system/flux GitRepository ${SYNC.url} ${AT}`,
    ],
    [
      'a targetNamespace, where the release installs',
      { targetNamespace: 'flux-operator' },
      [],
      `flux-operator/flux GitRepository ${SYNC.url} ${AT}`,
    ],
    [
      'values leaving out the kind, which the chart defaults to GitRepository',
      { values: { instance: { sync: { url: SYNC.url, path: SYNC.path } } } },
      [],
      `flux-system/flux GitRepository ${SYNC.url} ${AT}`,
    ],
    [
      'a chartRef to an OCIRepository of another namespace',
      { chartRef: { kind: 'OCIRepository', name: 'flux-instance', namespace: 'charts' } },
      [ociRepository(`${CHART_URL}/`, 'charts')],
      `flux-system/flux GitRepository ${SYNC.url} ${AT}`,
    ],
  ])('is derived for %s', (_case, spec, sources, expected) => {
    const found = discovery({
      helmReleases: [release(spec)],
      ...(sources.length > 0 ? { sources } : {}),
    });
    expect(derived(found)).toEqual([expected]);
  });

  it.each([
    ['another chart by name', { chartRef: undefined, chart: { spec: { chart: 'podinfo' } } }, []],
    [
      'a chartRef to an OCIRepository of another chart',
      {},
      [ociRepository('oci://ghcr.io/stefanprodan/charts/podinfo')],
    ],
    ['a chartRef to an OCIRepository nobody defines', {}, [ociRepository(CHART_URL, 'charts')]],
    ['a chartRef to a HelmChart', { chartRef: { kind: 'HelmChart', name: 'flux-instance' } }, []],
    [
      'values without a sync URL (the chart then writes no sync)',
      { values: { instance: { sync: { ...SYNC, url: '' } } } },
      [],
    ],
    [
      'sync values only in valuesFrom',
      { values: undefined, valuesFrom: [{ kind: 'ConfigMap', name: 'v' }] },
      [],
    ],
  ])('is none for %s', (_case, spec, sources) => {
    const found = discovery({
      helmReleases: [release(spec)],
      ...(sources.length > 0 ? { sources } : {}),
    });
    expect(derived(found)).toEqual([]);
  });

  it("leaves out the empty strings of the chart's defaults and keeps what the values set", () => {
    const found = discovery({
      helmReleases: [
        release({
          values: {
            instance: {
              sync: { ...SYNC, kind: 'OCIRepository', name: '', pullSecret: '', interval: '5m' },
            },
          },
        }),
      ],
    });
    expect(fluxInstanceReleases(found)[0]?.manifest['spec']).toEqual({
      sync: { ...SYNC, kind: 'OCIRepository', interval: '5m' },
    });
  });

  it('is none where a FluxInstance file of the same name and namespace is discovered', () => {
    const file: FoundObject = {
      manifest: {
        apiVersion: 'fluxcd.controlplane.io/v1',
        kind: 'FluxInstance',
        metadata: { name: 'flux', namespace: 'flux-system' },
        spec: { sync: { ...SYNC, path: 'clusters/staging' } },
      },
      file: 'clusters/prod/flux-instance.yaml',
      line: 1,
    };
    expect(derived(discovery({ helmReleases: [release({})], instances: [file] }))).toEqual([]);
  });

  it('gives the bootstrap source and Kustomization, defined at the HelmRelease', () => {
    const found = discovery({ helmReleases: [release({})] });
    const synced = withInstanceSyncs({ ...found, instances: fluxInstanceReleases(found) });
    expect(
      [...synced.kustomizations, ...synced.sources].map(
        (f) =>
          `${String(f.manifest['kind'])} ${JSON.stringify(f.manifest['metadata'])} ${f.file}:${f.line}`,
      ),
    ).toEqual([
      `Kustomization {"name":"flux-system","namespace":"flux-system"} ${AT}`,
      'OCIRepository {"name":"flux-instance","namespace":"flux-system"} clusters/prod/flux/ocirepository.yaml:1',
      `GitRepository {"name":"flux-system","namespace":"flux-system"} ${AT}`,
    ]);
  });
});
