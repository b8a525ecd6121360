/**
 * A render of a commit kept whole in the render cache: read back for the same commit it
 * is the render itself, object for object and Secret marker for marker; it hands its
 * producers to the other revision of a review as a fresh render does; and it is kept only
 * when nothing outside the commit shaped it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedCluster } from '../../src/model/render.js';
import { RenderMemo } from '../../src/render/cache/index.js';
import type { RenderRequest, RenderSettings } from '../../src/render/index.js';
import { makeChartRepository } from '../support/chart-repo.js';
import { startChartServer, type ChartServer } from '../support/chart-server.js';
import { builtinEngine, testHelmSettings, testRunner } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  helmRepositoryRelease,
  repositoryChartRelease,
  yamlStream as yaml,
  type RepoFiles,
  type TestRepo,
} from '../support/repo.js';

const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

let charts: ChartServer;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-whole-charts-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  await makeChartRepository(testRunner(), { dir, chart: 'hello', versions: ['1.0.0', '1.1.0'] });
  charts = await startChartServer(dir);
  cleanup.push(() => charts.close());
});

function freshCache(): NonNullable<RenderSettings['cache']> {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-whole-cache-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, maxBytes: 64 * 1024 * 1024 };
}

/** Online for the chart server on loopback, as the CLI renders. */
const engine = (cache?: RenderSettings['cache']) =>
  builtinEngine({
    helm: { ...testHelmSettings, offline: false },
    ...(cache ? { cache } : {}),
  });

const configMap = (name: string, data: Record<string, string>) =>
  yaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'apps' }, data });

const remoteRelease = (name: string, version: string) =>
  helmRepositoryRelease(name, 'apps', { chart: 'hello', version, repository: 'charts' });

/** A Kustomization substituting a Secret's value, a chart from the repository, one from a server. */
function files(version = '1.0.0'): RepoFiles {
  const apps = fluxKustomization('apps', './apps');
  const spec = {
    ...(apps['spec'] as object),
    postBuild: { substituteFrom: [{ kind: 'Secret', name: 'settings' }] },
  };
  return {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/settings.yaml': yaml({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'settings', namespace: 'flux-system' },
      stringData: { DOMAIN: 'secret-domain.example.com' },
    }),
    'clusters/prod/apps.yaml': yaml({ ...apps, spec }),
    'apps/kustomization.yaml': 'resources:\n  - web.yaml\n  - settings.yaml\n  - remote.yaml\n',
    'apps/settings.yaml': configMap('settings', { host: 'web.${DOMAIN}', replicas: '2' }),
    'apps/web.yaml': yaml(repositoryChartRelease('web', 'apps', './charts/web')),
    'apps/remote.yaml': yaml(
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'HelmRepository',
        metadata: { name: 'charts', namespace: 'apps' },
        spec: { interval: '1h', url: `${charts.url}/` },
      },
      remoteRelease('remote', version),
    ),
    'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
    'charts/web/templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: "1"\n',
  };
}

function repository(content: RepoFiles): TestRepo {
  const repo = makeRepo(content, { git: true });
  cleanup.push(() => repo.remove());
  return repo;
}

const request = (repo: TestRepo, rev: string, memo?: RenderMemo): RenderRequest => ({
  repoDir: repo.dir,
  rev,
  entry: 'clusters/prod',
  sources: [],
  ...(memo ? { memo } : {}),
});

/** What the rest of fluxlens sees of a render: everything but what the cache did with it. */
const seen = ({ cache: _cache, kept: _kept, ...cluster }: RenderedCluster) => cluster;

describe('a commit rendered before', () => {
  it('is read back whole: the same render, Secret markers included, nothing built', async () => {
    const repo = repository(files());
    const sha = repo.commit('base');
    const cache = freshCache();
    const first = await engine(cache).render(request(repo, sha));
    expect(first.errors).toEqual([]);
    expect(first.cache?.whole).toBeUndefined();
    const again = await engine(cache).render(request(repo, 'main'));
    expect(again.cache).toEqual({ hits: 0, misses: 0, whole: true });
    expect(seen(again)).toEqual(seen(first));
    expect(seen(again)).toEqual(seen(await engine().render(request(repo, sha))));
    const settings = again.objects.find(
      (o) =>
        o.manifest['kind'] === 'ConfigMap' &&
        (o.manifest['metadata'] as { name: string }).name === 'settings',
    );
    expect(settings?.secret?.texts).toEqual(['secret-domain.example.com']);
  });

  it('hands its producers to the next revision as a fresh render does', async () => {
    const repo = repository(files());
    const base = repo.commit('base');
    repo.write({ 'apps/settings.yaml': configMap('settings', { host: 'web', replicas: '3' }) });
    const head = repo.commit('head');
    const cache = freshCache();
    await engine(cache).render(request(repo, base));
    const memo = new RenderMemo();
    const kept = await engine(cache).render(request(repo, base, memo));
    const fromKept = await engine(cache).render(request(repo, head, memo));
    expect(kept.cache?.whole).toBe(true);
    expect(memo.counts).toMatchObject({ rendered: 1, cached: 4 });
    expect(memo.counts.unchanged).toBe(3);
    expect(seen(fromKept)).toEqual(seen(await engine().render(request(repo, head))));
  });
  it('is kept when a release names a chart source the commit lacks: it fails the same way each time', async () => {
    const orphan = {
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: { name: 'orphan', namespace: 'apps' },
      spec: { interval: '1h', chartRef: { kind: 'OCIRepository', name: 'nowhere' } },
    };
    const repo = repository({
      ...files(),
      'apps/kustomization.yaml':
        'resources:\n  - web.yaml\n  - settings.yaml\n  - remote.yaml\n  - orphan.yaml\n',
      'apps/orphan.yaml': yaml(orphan),
    });
    const base = repo.commit('base');
    repo.write({ 'apps/settings.yaml': configMap('settings', { host: 'web', replicas: '3' }) });
    const head = repo.commit('head');
    const cache = freshCache();
    const first = await engine(cache).render(request(repo, base));
    expect(first.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('chartRef OCIRepository/apps/nowhere was not found'),
    ]);
    const again = await engine(cache).render(request(repo, base));
    expect(again.cache?.whole).toBe(true);
    expect(seen(again)).toEqual(seen(first));
    // The next revision takes the failed release from the kept render, as the rest.
    const memo = new RenderMemo();
    await engine(cache).render(request(repo, base, memo));
    const fromKept = await engine(cache).render(request(repo, head, memo));
    expect(seen(fromKept)).toEqual(seen(await engine().render(request(repo, head))));
  });
});

describe('a render is not kept', () => {
  const keptOnSecondRender = async (repo: TestRepo, rev: string, more: Partial<RenderRequest>) => {
    const cache = freshCache();
    await engine(cache).render({ ...request(repo, rev), ...more });
    const again = await engine(cache).render({ ...request(repo, rev), ...more });
    return again.cache?.whole === true;
  };

  it('when a chart is picked by a version range: a newer chart may match tomorrow', async () => {
    const repo = repository(files('1.x'));
    const sha = repo.commit('base');
    expect(await keptOnSecondRender(repo, sha, {})).toBe(false);
  });

  it('when a chart could not be fetched', async () => {
    const repo = repository({
      ...files(),
      'apps/remote.yaml': yaml(
        {
          apiVersion: 'source.toolkit.fluxcd.io/v1',
          kind: 'HelmRepository',
          metadata: { name: 'charts', namespace: 'apps' },
          spec: { interval: '1h', url: 'http://127.0.0.1:9/' },
        },
        remoteRelease('remote', '1.0.0'),
      ),
    });
    const sha = repo.commit('base');
    expect(await keptOnSecondRender(repo, sha, {})).toBe(false);
  });

  it('when a source is mapped from a folder outside the commit', async () => {
    const repo = repository(files());
    const sha = repo.commit('base');
    const mapped = { sources: [{ key: 'flux-system', dir: repo.dir }] };
    expect(await keptOnSecondRender(repo, sha, mapped)).toBe(false);
  });

  it('for a folder on disk, which changes under its name', async () => {
    const repo = repository(files());
    repo.commit('base');
    const cache = freshCache();
    const onDisk = { repoDir: repo.dir, entry: 'clusters/prod', sources: [] };
    await engine(cache).render(onDisk);
    expect((await engine(cache).render(onDisk)).cache?.whole).toBeUndefined();
  });

  it('but read back damaged, it is a miss and the commit renders again', async () => {
    const repo = repository(files());
    const sha = repo.commit('base');
    const cache = freshCache();
    const first = await engine(cache).render(request(repo, sha));
    let damaged = 0;
    for (const entry of readdirSync(cache.dir, { recursive: true, withFileTypes: true })) {
      const file = join(entry.parentPath, entry.name);
      if (!entry.isFile() || !readFileSync(file, 'utf8').startsWith('{"v":2,"producers":'))
        continue;
      writeFileSync(file, '{"v":2,"producers":');
      damaged += 1;
    }
    expect(damaged).toBe(1);
    const again = await engine(cache).render(request(repo, sha));
    expect(again.cache?.whole).toBeUndefined();
    expect(seen(again)).toEqual(seen(first));
  });
});
