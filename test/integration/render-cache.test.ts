/**
 * The render cache: a build whose inputs are unchanged is taken from the cache instead of
 * running kustomize again, and what comes out is exactly what a fresh build gives, object
 * for object, whatever the edit (a property test applies random edits to a generated
 * repository and compares with a render without the cache).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { RenderedCluster } from '../../src/model/render.js';
import { DEFAULT_RENDER_SETTINGS, type RenderSettings } from '../../src/render/index.js';
import { builtinEngine, testHelmSettings } from '../support/render.js';
import {
  bootstrap,
  makeRepo,
  yamlStream,
  type RepoFiles,
  type TestRepo,
  repositoryChartRelease,
} from '../support/repo.js';

const cacheDirs: string[] = [];
const repos: TestRepo[] = [];
afterAll(() => {
  repos.forEach((r) => r.remove());
  cacheDirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function freshCache(): NonNullable<RenderSettings['cache']> {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-render-cache-'));
  cacheDirs.push(dir);
  return { dir, maxBytes: 64 * 1024 * 1024 };
}

const settings = (cache?: RenderSettings['cache'], helm = false): RenderSettings => ({
  ...DEFAULT_RENDER_SETTINGS,
  helm: { ...testHelmSettings, enabled: helm },
  ...(cache ? { cache } : {}),
});

async function render(
  dir: string,
  cache?: RenderSettings['cache'],
  helm = false,
): Promise<RenderedCluster> {
  return builtinEngine(settings(cache, helm)).render({
    repoDir: dir,
    entry: 'clusters/prod',
    sources: [],
  });
}

/** What the rest of fluxlens sees of a render: everything but what the cache did with it. */
const seen = ({ cache: _cache, kept: _kept, ...cluster }: RenderedCluster) => cluster;

const configMap = (name: string, value: string) =>
  yamlStream({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'apps' },
    data: { value, greeting: '${GREETING}' },
  });

const kustomization = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name, namespace: 'flux-system' },
  spec: {
    interval: '10m',
    path,
    prune: true,
    sourceRef: { kind: 'GitRepository', name: 'flux-system' },
    postBuild: { substituteFrom: [{ kind: 'ConfigMap', name: 'vars' }] },
    ...extra,
  },
});

/** Apps a..e; a, b and c use the shared component; d has a kustomization.yaml with a patch. */
function fleet(values: Record<string, string> = {}): RepoFiles {
  const v = (key: string) => values[key] ?? `${key}-1`;
  const files: RepoFiles = {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/vars.yaml': yamlStream({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'vars', namespace: 'flux-system' },
      data: { GREETING: v('greeting') },
    }),
    'components/shared/kustomization.yaml':
      'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [shared.yaml]\n',
    'components/shared/shared.yaml': configMap('shared', v('shared')),
  };
  for (const app of ['a', 'b', 'c', 'd', 'e']) {
    const component = ['a', 'b', 'c'].includes(app)
      ? { components: ['../../components/shared'] }
      : {};
    files[`clusters/prod/${app}.yaml`] = yamlStream(
      kustomization(app, `./apps/${app}`, { namePrefix: `${app}-`, ...component }),
    );
    files[`apps/${app}/cm.yaml`] = configMap(app, v(app));
  }
  files['apps/d/kustomization.yaml'] = 'resources: [cm.yaml]\npatches:\n  - path: patch.yaml\n';
  files['apps/d/patch.yaml'] = yamlStream({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'd', namespace: 'apps' },
    data: { patched: v('patch') },
  });
  return files;
}

function repoOf(files: RepoFiles): TestRepo {
  const repo = makeRepo(files);
  repos.push(repo);
  return repo;
}

describe('the render cache', () => {
  it('answers every build of an unchanged repository, with the same objects', async () => {
    const repo = repoOf(fleet());
    const cache = freshCache();
    const first = await render(repo.dir, cache);
    const second = await render(repo.dir, cache);
    expect(first.cache).toEqual({ hits: 0, misses: 6 });
    expect(second.cache).toEqual({ hits: 6, misses: 0 });
    expect(seen(second)).toEqual(seen(first));
  });

  it('runs again only the build whose file changed', async () => {
    const cache = freshCache();
    await render(repoOf(fleet()).dir, cache);
    const after = await render(repoOf(fleet({ e: 'e-2' })).dir, cache);
    expect(after.cache).toEqual({ hits: 5, misses: 1 });
  });

  it('runs again every consumer of a shared component that changed, and nothing else', async () => {
    const cache = freshCache();
    await render(repoOf(fleet()).dir, cache);
    const after = await render(repoOf(fleet({ shared: 'shared-2' })).dir, cache);
    expect(after.cache).toEqual({ hits: 3, misses: 3 });
  });

  it('runs again the build whose patch file changed', async () => {
    const cache = freshCache();
    await render(repoOf(fleet()).dir, cache);
    const after = await render(repoOf(fleet({ patch: 'patch-2' })).dir, cache);
    expect(after.cache).toEqual({ hits: 5, misses: 1 });
  });

  it('substitutes the values of this render into a build taken from the cache', async () => {
    const cache = freshCache();
    await render(repoOf(fleet()).dir, cache);
    const after = await render(repoOf(fleet({ greeting: 'hello-2' })).dir, cache);
    expect(after.cache?.misses).toBe(1); // flux-system: vars.yaml is its own file
    const greetings = after.objects
      .map((o) => (o.manifest['data'] as Record<string, string> | undefined)?.['greeting'])
      .filter((g) => g !== undefined);
    expect(new Set(greetings)).toEqual(new Set(['hello-2']));
  });

  it('gives what a render without it gives, after any edit (property)', async () => {
    const cache = freshCache();
    const keys = ['a', 'b', 'c', 'd', 'e', 'shared', 'patch', 'greeting'];
    let hits = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...keys), fc.constantFrom('x', 'y', 'z'), { maxKeys: 3 }),
        async (edit) => {
          const repo = repoOf(fleet(edit));
          const cached = await render(repo.dir, cache);
          const fresh = await render(repo.dir);
          expect(seen(cached)).toEqual(fresh);
          hits += cached.cache?.hits ?? 0;
        },
      ),
      { numRuns: 8, seed: 20261201 },
    );
    // Equal because the cache answered, not because it never did.
    expect(hits).toBeGreaterThan(0);
  });
});

describe('the render cache for charts', () => {
  const release = (replicas: number) =>
    yamlStream(repositoryChartRelease('web', 'apps', './charts/web', { values: { replicas } }));
  const chart = (label: string): RepoFiles => ({
    'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
    'charts/web/templates/cm.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
  labels: { tier: ${label} }
data:
  replicas: "{{ .Values.replicas }}"
`,
  });
  const fleetWithChart = (replicas: number, label: string): RepoFiles => ({
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/web.yaml': release(replicas),
    ...chart(label),
  });
  const data = (cluster: RenderedCluster) =>
    cluster.objects.find((o) => o.producer.kind === 'HelmRelease')?.manifest;

  it('renders a release again only when its values or its chart change', async () => {
    const cache = freshCache();
    const first = await render(repoOf(fleetWithChart(1, 'a')).dir, cache, true);
    const same = await render(repoOf(fleetWithChart(1, 'a')).dir, cache, true);
    const values = await render(repoOf(fleetWithChart(2, 'a')).dir, cache, true);
    const template = await render(repoOf(fleetWithChart(2, 'b')).dir, cache, true);
    // Each render: the flux-system Kustomization (its folder holds the release's values),
    // then the release's helm template (the chart is outside that folder).
    expect([first, same, values, template].map((c) => c.cache)).toEqual([
      { hits: 0, misses: 2 },
      { hits: 2, misses: 0 },
      { hits: 0, misses: 2 },
      { hits: 1, misses: 1 },
    ]);
    expect(seen(same)).toEqual(seen(first));
    expect(data(values)?.['data']).toEqual({ replicas: '2' });
    expect(data(template)?.['metadata']).toMatchObject({ labels: { tier: 'b' } });
  });
});
