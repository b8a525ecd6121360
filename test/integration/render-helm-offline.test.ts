/**
 * A HelmRelease whose chart is not in the cache of an offline render fails with a coded
 * error, so the diff can tell "not cached" from a broken chart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedCluster } from '../../src/model/render.js';
import { builtinEngine, testHelmSettings } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream,
  type RepoFiles,
  type TestRepo,
} from '../support/repo.js';

const FILES: RepoFiles = {
  'clusters/prod/flux-system/sync.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/apps.yaml': yamlStream(fluxKustomization('apps', './apps')),
  'charts/broken/Chart.yaml': 'apiVersion: v2\nname: broken\nversion: 0.1.0\n',
  'charts/broken/templates/cm.yaml': 'tag: {{ required "a tag is required" .Values.tag }}\n',
  'apps/releases.yaml': `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: closed
  namespace: apps
spec:
  interval: 1h
  url: http://127.0.0.1:9/charts
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: remote
  namespace: apps
spec:
  interval: 1h
  chart:
    spec:
      chart: hello
      version: 0.1.0
      sourceRef:
        kind: HelmRepository
        name: closed
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: misplaced
  namespace: apps
spec:
  interval: 1h
  chart:
    spec:
      chart: ./charts/not-there
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: broken
  namespace: apps
spec:
  interval: 1h
  chart:
    spec:
      chart: ./charts/broken
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
`,
};

describe('a HelmRelease whose chart is not cached, rendered offline', () => {
  let repo: TestRepo;
  let cacheDir: string;
  const errorOf = (cluster: RenderedCluster, name: string) =>
    cluster.errors.find((e) => e.producer.kind === 'HelmRelease' && e.producer.name === name);

  beforeAll(() => {
    repo = makeRepo(FILES);
    cacheDir = mkdtempSync(join(tmpdir(), 'fluxlens-cold-cache-'));
  });
  afterAll(() => {
    repo.remove();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  const render = (offline: boolean) =>
    builtinEngine({ helm: { ...testHelmSettings, offline, chartCacheDir: cacheDir } }).render({
      repoDir: repo.dir,
      entry: '.',
      sources: [],
    });

  it('reports the chart as unavailable offline, and a template failure without a code', async () => {
    const cluster = await render(true);
    expect(errorOf(cluster, 'remote')).toMatchObject({
      message: expect.stringMatching(/^chart unavailable: .*not in the cache \(offline\)/),
      code: 'chart-unavailable',
      offline: true,
    });
    const broken = errorOf(cluster, 'broken');
    expect(broken?.message).toMatch(/a tag is required/);
    expect(broken).not.toHaveProperty('code');
    expect(broken).not.toHaveProperty('offline');
  });

  it('does not excuse a local chart path that is wrong, offline or not: it has no code', async () => {
    for (const offline of [true, false]) {
      const misplaced = errorOf(await render(offline), 'misplaced');
      expect(misplaced?.message).toMatch(/no such path in the source/);
      expect(misplaced).not.toHaveProperty('code');
      expect(misplaced).not.toHaveProperty('offline');
    }
  });

  it('marks a chart unavailable to an online render as not offline', async () => {
    const cluster = await render(false);
    expect(errorOf(cluster, 'remote')).toMatchObject({ code: 'chart-unavailable', offline: false });
  });
});
