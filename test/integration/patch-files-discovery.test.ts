/**
 * Issue 10, point 9: a strategic-merge patch file discovered as a duplicate HelmRelease.
 * Flux applies what kustomize builds: a nested producer comes from its parent's rendered
 * output, and discovery only seeds the top level. A file that a kustomization names as a
 * patch (patches, patchesStrategicMerge, patchesJson6902, or any other input) holds no
 * definition, and neither does a file that its folder's kustomization does not list.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { objectMeta, producerKey, type RenderedCluster } from '../../src/model/render.js';
import { analyze } from '../../src/analysis/index.js';
import { builtinEngine, testMachine, testRenderOptions, testRunner } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  repositoryChartRelease,
  type RepoFiles,
  type TestRepo,
  yamlStream as yaml,
} from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const partialRelease = (name: string, values: Record<string, unknown>): string =>
  yaml({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name, namespace: 'apps' },
    spec: { values },
  });

/**
 * A fleet with app `web` in `appDir` (a HelmRelease of a chart in the repository) and an
 * overlay apps/prod that patches its replicas from patches/helmrelease.yaml. `appDir`
 * decides whether the patch file sorts before or after the real definition.
 */
function fleet(appDir: string): RepoFiles {
  return {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': yaml(fluxKustomization('apps', './apps/prod')),
    'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
    'charts/web/templates/settings.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n' +
      'data:\n  replicas: "{{ .Values.replicas }}"\n',
    [`${appDir}/helmrelease.yaml`]: yaml(
      repositoryChartRelease('web', 'apps', './charts/web', { values: { replicas: 1 } }),
    ),
    [`${appDir}/kustomization.yaml`]: 'resources:\n  - helmrelease.yaml\n',
    'apps/prod/kustomization.yaml': `resources:\n  - ../${appDir.slice('apps/'.length)}\npatches:\n  - path: patches/helmrelease.yaml\n`,
    'apps/prod/patches/helmrelease.yaml': partialRelease('web', { replicas: 3 }),
  };
}

async function render(files: RepoFiles): Promise<RenderedCluster> {
  const repo = makeRepo(files);
  repos.push(repo);
  return builtinEngine().render({ repoDir: repo.dir, entry: '.', sources: [] });
}

function replicasOfWeb(cluster: RenderedCluster): unknown {
  const settings = cluster.objects.find(
    (o) => objectMeta(o.manifest).kind === 'ConfigMap' && objectMeta(o.manifest).name === 'web',
  );
  return (settings?.manifest['data'] as Record<string, unknown> | undefined)?.['replicas'];
}

describe('a patch file under the reviewed tree', () => {
  it.each([
    ['after', 'apps/base/web'],
    ['before', 'apps/web'],
  ])('is no second HelmRelease when it sorts %s the real one', async (_order, appDir) => {
    const cluster = await render(fleet(appDir));
    expect(cluster.errors).toEqual([]);
    expect(cluster.producers.filter((p) => p.kind === 'HelmRelease')).toMatchObject([
      {
        name: 'web',
        path: 'charts/web',
        definedIn: { parent: { kind: 'Kustomization', name: 'apps' } },
      },
    ]);
    expect(replicasOfWeb(cluster)).toBe('3');
  });

  it('is no Kustomization and no chartless HelmRelease, whichever patch field names it', async () => {
    const cluster = await render({
      ...fleet('apps/base/web'),
      'overlays/staging/kustomization.yaml':
        'resources:\n  - ../../apps/base/web\n' +
        'patches:\n  - path: apps-patch.yaml\n    target:\n      kind: Kustomization\n' +
        'patchesStrategicMerge:\n  - release-patch.yaml\n' +
        'patchesJson6902:\n  - path: json-patch.yaml\n' +
        '    target: { group: helm.toolkit.fluxcd.io, version: v2, kind: HelmRelease, name: other }\n',
      'overlays/staging/apps-patch.yaml': yaml({
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        metadata: { name: 'apps', namespace: 'flux-system' },
        spec: { prune: false },
      }),
      'overlays/staging/release-patch.yaml': partialRelease('other', { replicas: 2 }),
      'overlays/staging/json-patch.yaml': yaml({
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        metadata: { name: 'json', namespace: 'apps' },
      }),
    });
    expect(cluster.errors).toEqual([]);
    expect(cluster.producers.map(producerKey)).toEqual([
      'HelmRelease/apps/web',
      'Kustomization/flux-system/apps',
      'Kustomization/flux-system/flux-system',
    ]);
  });

  it('is no definition when its folder has a kustomization that does not list it', async () => {
    const cluster = await render({
      ...fleet('apps/base/web'),
      'apps/base/web/old-release.yaml': partialRelease('old', { replicas: 1 }),
    });
    expect(cluster.errors).toEqual([]);
    expect(cluster.producers.map((p) => p.name)).not.toContain('old');
  });

  it('still defines what another kustomization lists as a resource', async () => {
    const cluster = await render({
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/kustomization.yaml': 'resources:\n  - flux-system.yaml\n  - extra/apps.yaml\n',
      'clusters/prod/extra/kustomization.yaml': 'resources: []\n',
      'clusters/prod/extra/apps.yaml': yaml(fluxKustomization('apps', './apps')),
      'apps/web.yaml': yaml({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'web', namespace: 'apps' },
      }),
    });
    expect(cluster.errors).toEqual([]);
    expect(cluster.producers.map(producerKey)).toEqual([
      'Kustomization/flux-system/apps',
      'Kustomization/flux-system/flux-system',
    ]);
  });
});

describe('a pull request changing a patch file', () => {
  it('shows the patched release changing, with no render error', async () => {
    const repo = makeRepo(fleet('apps/base/web'), { git: true });
    repos.push(repo);
    const base = repo.commit('base');
    repo.write({ 'apps/prod/patches/helmrelease.yaml': partialRelease('web', { replicas: 5 }) });
    const head = repo.commit('five replicas');
    // The whole repository, so that discovery walks the overlay and its patch file.
    const { result } = await analyze(
      {
        repoDir: repo.dir,
        base,
        head,
        paths: ['.'],
        engine: 'builtin',
        render: testRenderOptions,
        sources: [],
      },
      { runner: testRunner(), machine: testMachine, now: () => 0 },
    );
    expect(result.errors).toEqual([]);
    expect(result.clusters[0]?.errorsIntroduced).toEqual([]);
    expect(
      result.changes.map((c) => `${c.status} ${c.kind}/${c.name} <- ${c.producer.name}`),
    ).toEqual(['changed ConfigMap/web <- web', 'changed HelmRelease/web <- apps']);
  });
});

describe('an entry of namespace folders, with no Kustomization that applies it', () => {
  // apps/<namespace>/kustomization.yaml sets the namespace of the Flux Kustomizations it lists,
  // as in repositories whose bootstrap Kustomization lives outside Git.
  const files: RepoFiles = {
    'apps/media/kustomization.yaml': 'namespace: media\nresources:\n  - plex/ks.yaml\n',
    'apps/media/plex/ks.yaml': yaml({
      ...fluxKustomization('plex', './apps/media/plex/app'),
      metadata: { name: 'plex' },
    }),
    'apps/media/plex/app/kustomization.yaml': 'resources:\n  - settings.yaml\n',
    'apps/media/plex/app/settings.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plex\ndata:\n  a: "1"\n',
  };

  it('names each Kustomization in the namespace its folder gives it', async () => {
    const repo = makeRepo(files);
    repos.push(repo);
    const cluster = await builtinEngine().render({ repoDir: repo.dir, entry: 'apps', sources: [] });
    expect(cluster.errors).toEqual([]);
    // The entry itself is applied as `flux bootstrap` would apply it, so plex is its object.
    expect(cluster.producers.map(producerKey)).toEqual([
      'Kustomization/flux-system/flux-system',
      'Kustomization/media/plex',
    ]);
    expect(cluster.producers[1]?.definedIn).toEqual({
      parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
    });
  });
});
