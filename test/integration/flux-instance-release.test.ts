/**
 * A cluster whose FluxInstance no file holds: a HelmRelease installs flux-operator's
 * flux-instance chart, and the chart renders the instance from the release's values. Its
 * spec.sync still applies the entry, so the entry's own files belong to the flux-system
 * Kustomization the operator creates, whether or not the chart can be fetched (here it
 * cannot: tests run offline). A HelmRelease of any other chart applies nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { objectMeta, type RenderedCluster } from '../../src/model/render.js';
import { renderJson } from '../../src/report/json.js';
import { analyzeBranches, builtinEngine } from '../support/render.js';
import {
  fluxKustomization,
  makeRepo,
  type RepoFiles,
  type TestRepo,
  yamlStream as yaml,
} from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const REPO_URL = 'https://github.com/example/fleet';

const settings = (domain: string): string =>
  yaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cluster-settings', namespace: 'flux-system' },
    data: { DOMAIN: domain },
  });

/** The cluster's own files: settings, and a Kustomization for apps. */
const ENTRY: RepoFiles = {
  'clusters/prod/cluster-settings.yaml': settings('a.example.org'),
  'clusters/prod/apps.yaml': yaml(fluxKustomization('apps', './apps')),
  'apps/web.yaml': yaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web', namespace: 'apps' },
    data: { a: '1' },
  }),
};

/**
 * Flux installed as onedr0p-style repositories do: an OCIRepository of a chart and a
 * HelmRelease of it whose values sync the entry, in a folder whose kustomization file
 * puts both in flux-system.
 */
function operatorRelease(chartUrl: string): RepoFiles {
  return {
    'clusters/prod/flux/kustomization.yaml':
      'namespace: flux-system\nresources:\n  - ocirepository.yaml\n  - helmrelease.yaml\n',
    'clusters/prod/flux/ocirepository.yaml': yaml({
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'OCIRepository',
      metadata: { name: 'flux-instance' },
      spec: { interval: '1h', url: chartUrl, ref: { tag: '0.20.0' } },
    }),
    'clusters/prod/flux/helmrelease.yaml': yaml({
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: { name: 'flux-instance' },
      spec: {
        interval: '1h',
        chartRef: { kind: 'OCIRepository', name: 'flux-instance' },
        values: {
          instance: {
            distribution: { version: '2.x' },
            sync: {
              kind: 'GitRepository',
              url: `${REPO_URL}.git`,
              ref: 'refs/heads/main',
              path: 'clusters/prod',
            },
          },
        },
      },
    }),
  };
}

const FLUX_INSTANCE = operatorRelease('oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance');
const OTHER_CHART = operatorRelease('oci://ghcr.io/stefanprodan/charts/podinfo');

async function render(files: RepoFiles): Promise<RenderedCluster> {
  const repo = makeRepo(files);
  repos.push(repo);
  return builtinEngine().render({
    repoDir: repo.dir,
    entry: 'clusters/prod',
    sources: [],
    repoUrl: REPO_URL,
  });
}

/** `Kind/name <- producer name` for every object, sorted. */
function attribution(cluster: RenderedCluster): string[] {
  return cluster.objects
    .map(
      (o) => `${objectMeta(o.manifest).kind}/${objectMeta(o.manifest).name} <- ${o.producer.name}`,
    )
    .sort();
}

describe('a flux-instance HelmRelease in the entry', () => {
  it("makes the entry's own files the flux-system Kustomization's, defined at the release", async () => {
    const cluster = await render({ ...FLUX_INSTANCE, ...ENTRY });
    expect(attribution(cluster)).toEqual([
      'ConfigMap/cluster-settings <- flux-system',
      'ConfigMap/web <- apps',
      'HelmRelease/flux-instance <- flux-system',
      'Kustomization/apps <- flux-system',
      'OCIRepository/flux-instance <- flux-system',
    ]);
    expect(cluster.producers.filter((p) => p.name === 'flux-system')).toEqual([
      expect.objectContaining({
        kind: 'Kustomization',
        namespace: 'flux-system',
        path: 'clusters/prod',
        prune: true,
        source: 'GitRepository/flux-system/flux-system',
        definedIn: { file: 'clusters/prod/flux/helmrelease.yaml', line: 1 },
      }),
    ]);
    // The chart is out of reach offline: only the release itself is left unrendered.
    expect(cluster.errors).toEqual([
      expect.objectContaining({
        producer: { kind: 'HelmRelease', namespace: 'flux-system', name: 'flux-instance' },
      }),
    ]);
  });

  it('of another chart applies nothing: the entry is as its files define it', async () => {
    const cluster = await render({ ...OTHER_CHART, ...ENTRY });
    expect(attribution(cluster)).toEqual(['ConfigMap/web <- apps']);
    expect(cluster.producers.some((p) => p.name === 'flux-system')).toBe(false);
  });
});

describe('a pull request changing a file directly in the entry of a flux-instance release', () => {
  it('shows the change under the flux-system Kustomization', async () => {
    const repo = makeRepo({ ...FLUX_INSTANCE, ...ENTRY }, { git: true });
    repos.push(repo);
    const base = repo.commit('base');
    repo.write({ 'clusters/prod/cluster-settings.yaml': settings('b.example.org') });
    const head = repo.commit('move the cluster domain');
    const result = await analyzeBranches(repo.dir, base, head);

    const json = JSON.parse(renderJson(result)) as { changes: Array<Record<string, unknown>> };
    expect(json.changes).toEqual([
      expect.objectContaining({
        kind: 'ConfigMap',
        name: 'cluster-settings',
        status: 'changed',
        file: 'clusters/prod/cluster-settings.yaml',
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
      }),
    ]);
  });
});
