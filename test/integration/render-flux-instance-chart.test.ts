/**
 * A cluster whose FluxInstance no file holds: a HelmRelease installs a flux-instance chart,
 * which renders the instance from the release's values. Once that release has rendered, its
 * FluxInstance's sync applies the entry as flux-operator would, with real helm and kustomize;
 * when the chart cannot be had, the release's error says which folder that leaves unapplied.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { objectMeta, type RenderedCluster } from '../../src/model/render.js';
import { builtinEngine } from '../support/render.js';
import {
  bootstrap,
  makeRepo,
  type RepoFiles,
  type TestRepo,
  yamlStream as yaml,
} from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

/** A chart shaped like flux-operator's flux-instance: one FluxInstance `flux` from values. */
const CHART: RepoFiles = {
  'charts/flux-instance/Chart.yaml': 'apiVersion: v2\nname: flux-instance\nversion: 0.30.0\n',
  'charts/flux-instance/templates/instance.yaml': `apiVersion: fluxcd.controlplane.io/v1
kind: FluxInstance
metadata:
  name: flux
  namespace: {{ .Release.Namespace }}
spec:
  distribution:
    version: "2.x"
    registry: ghcr.io/fluxcd
  sync:
{{ toYaml .Values.instance.sync | indent 4 }}
`,
};

const SYNC = {
  kind: 'GitRepository',
  url: 'https://github.com/example/fleet.git',
  ref: 'refs/heads/main',
  path: 'clusters/prod',
};

function release(chart: Record<string, unknown>): string {
  return yaml({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name: 'flux-instance', namespace: 'flux-system' },
    spec: { interval: '1h', chart: { spec: chart }, values: { instance: { sync: SYNC } } },
  });
}

/** The entry's own files: a setting only the instance's sync applies, and an apps Kustomization. */
const ENTRY: RepoFiles = {
  'clusters/prod/cluster-settings.yaml': yaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cluster-settings', namespace: 'flux-system' },
    data: { DOMAIN: 'example.org' },
  }),
  'clusters/prod/apps.yaml': yaml({
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: 'apps', namespace: 'flux-system' },
    spec: {
      interval: '10m',
      path: './apps',
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
    },
  }),
  'apps/web.yaml': yaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web', namespace: 'apps' },
    data: { a: '1' },
  }),
};

async function render(files: RepoFiles): Promise<RenderedCluster> {
  const repo = makeRepo(files);
  repos.push(repo);
  return builtinEngine().render({ repoDir: repo.dir, entry: 'clusters/prod', sources: [] });
}

const producerOf = (cluster: RenderedCluster, kind: string, name: string) =>
  cluster.objects.find((o) => {
    const meta = objectMeta(o.manifest);
    return meta.kind === kind && meta.name === name;
  })?.producer;

describe('a FluxInstance rendered by a flux-instance chart', () => {
  it('applies the entry through the Kustomization flux-operator creates for its sync', async () => {
    const cluster = await render({
      ...CHART,
      ...ENTRY,
      'clusters/prod/flux/flux-instance.yaml': release({
        chart: './charts/flux-instance',
        sourceRef: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' },
      }),
    });
    expect(cluster.errors).toEqual([]);
    const sync = cluster.producers.find(
      (p) => p.kind === 'Kustomization' && p.name === 'flux-system',
    );
    expect(sync).toMatchObject({
      namespace: 'flux-system',
      path: 'clusters/prod',
      prune: true,
      source: 'GitRepository/flux-system/flux-system',
      definedIn: { file: 'clusters/prod/flux/flux-instance.yaml' },
    });
    const bySync = { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' };
    expect(producerOf(cluster, 'ConfigMap', 'cluster-settings')).toEqual(bySync);
    // The release is the sync's object too: flux-operator's loop, rendered once more, no cycle.
    expect(producerOf(cluster, 'HelmRelease', 'flux-instance')).toEqual(bySync);
    expect(producerOf(cluster, 'FluxInstance', 'flux')).toEqual({
      kind: 'HelmRelease',
      namespace: 'flux-system',
      name: 'flux-instance',
    });
    expect(producerOf(cluster, 'ConfigMap', 'web')).toEqual({ ...bySync, name: 'apps' });
    const apps = cluster.producers.find((p) => p.name === 'apps');
    expect(apps?.definedIn).toEqual({ parent: bySync });
  });

  it('applies the entry as well for a FluxInstance a Kustomization renders from outside it', async () => {
    const cluster = await render({
      ...ENTRY,
      'clusters/prod/flux.yaml': yaml({
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        metadata: { name: 'flux', namespace: 'flux-system' },
        spec: {
          interval: '1h',
          path: './infrastructure/flux',
          prune: true,
          sourceRef: { kind: 'GitRepository', name: 'flux-system' },
        },
      }),
      'infrastructure/flux/instance.yaml': yaml({
        apiVersion: 'fluxcd.controlplane.io/v1',
        kind: 'FluxInstance',
        metadata: { name: 'flux', namespace: 'flux-system' },
        spec: { distribution: { version: '2.x' }, sync: SYNC },
      }),
    });
    expect(cluster.errors).toEqual([]);
    expect(cluster.producers.find((p) => p.name === 'flux-system')?.definedIn).toEqual({
      file: 'infrastructure/flux/instance.yaml',
      line: 1,
    });
    const bySync = { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' };
    expect(producerOf(cluster, 'ConfigMap', 'cluster-settings')).toEqual(bySync);
    expect(producerOf(cluster, 'FluxInstance', 'flux')).toEqual({ ...bySync, name: 'flux' });
  });

  it("applies the entry by bootstrap's convention when the instance syncs another cluster", async () => {
    const files = {
      ...CHART,
      ...ENTRY,
      'clusters/prod/flux/flux-instance.yaml': release({
        chart: './charts/flux-instance',
        sourceRef: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' },
      }).replace('path: clusters/prod', 'path: clusters/staging'),
    };
    const cluster = await render(files);
    expect(cluster.producers.map((p) => p.name).sort()).toEqual([
      'apps',
      'flux-instance',
      'flux-system',
    ]);
    const assumed = cluster.producers.find((p) => p.name === 'flux-system');
    expect(assumed).toMatchObject({ byConvention: 'flux-bootstrap', path: 'clusters/prod' });
    expect(producerOf(cluster, 'ConfigMap', 'cluster-settings')).toEqual({
      kind: 'Kustomization',
      namespace: 'flux-system',
      name: 'flux-system',
    });
  });

  it("applies the entry by bootstrap's convention when the chart cannot be fetched, with no note on the error", async () => {
    const cluster = await render({
      ...ENTRY,
      'clusters/prod/flux/repository.yaml': yaml({
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'HelmRepository',
        metadata: { name: 'controlplane', namespace: 'flux-system' },
        spec: { interval: '1h', url: 'http://127.0.0.1:9/charts' },
      }),
      'clusters/prod/flux/flux-instance.yaml': release({
        chart: 'flux-instance',
        version: '0.30.0',
        sourceRef: { kind: 'HelmRepository', name: 'controlplane' },
      }),
    });
    const error = cluster.errors.find((e) => e.producer.name === 'flux-instance');
    expect(error).toMatchObject({ code: 'chart-unavailable' });
    // The folder the instance would sync is the entry, which the assumed Kustomization applies.
    expect(error?.message).not.toMatch(/FluxInstance/);
    const assumed = cluster.producers.find((p) => p.name === 'flux-system');
    expect(assumed).toMatchObject({ byConvention: 'flux-bootstrap', path: 'clusters/prod' });
    expect(producerOf(cluster, 'ConfigMap', 'cluster-settings')).toEqual({
      kind: 'Kustomization',
      namespace: 'flux-system',
      name: 'flux-system',
    });
  });

  it('adds nothing to the error when another Kustomization applies that folder', async () => {
    const cluster = await render({
      ...ENTRY,
      'clusters/prod/flux-system/gotk-sync.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/flux/repository.yaml': yaml({
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'HelmRepository',
        metadata: { name: 'controlplane', namespace: 'flux-system' },
        spec: { interval: '1h', url: 'http://127.0.0.1:9/charts' },
      }),
      'clusters/prod/flux/flux-instance.yaml': release({
        chart: 'flux-instance',
        version: '0.30.0',
        sourceRef: { kind: 'HelmRepository', name: 'controlplane' },
      }),
    });
    const error = cluster.errors.find((e) => e.producer.name === 'flux-instance');
    expect(error).toMatchObject({ code: 'chart-unavailable' });
    expect(error?.message).not.toMatch(/FluxInstance/);
  });
});
