/**
 * HelmReleases through the whole builtin engine: each is a producer of its chart's
 * objects, and each way a release can fail stays with that release while the rest of
 * the cluster renders.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedCluster } from '../../src/model/render.js';
import { renderToJson } from '../../src/analysis/index.js';
import { projectRoot } from '../support/paths.js';
import { builtinEngine } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream,
  type RepoFiles,
  type TestRepo,
} from '../support/repo.js';

function chartFiles(name: string, into: string): RepoFiles {
  const dir = join(projectRoot, 'test', 'fixtures', 'charts', name);
  const files: RepoFiles = {};
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else files[`${into}/${child}`] = readFileSync(join(dir, child), 'utf8');
    }
  };
  walk('');
  return files;
}

function release(name: string, chart: string, extra = ''): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ${name}
  namespace: apps
spec:
  interval: 1h
  chart:
    spec:
      chart: ${chart}
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
${extra}`;
}

const FILES: RepoFiles = {
  'clusters/prod/flux-system/sync.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/apps.yaml': yamlStream(fluxKustomization('apps', './apps')),
  ...chartFiles('hello', 'charts/hello'),
  'charts/broken/Chart.yaml': 'apiVersion: v2\nname: broken\nversion: 0.1.0\n',
  'charts/broken/templates/cm.yaml': 'tag: {{ required "a tag is required" .Values.tag }}\n',
  'apps/values.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: good-values
  namespace: apps
data:
  values.yaml: |
    message: from-configmap
  greeting: hi there
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: bad-values
  namespace: apps
data:
  values.yaml: "message: [unclosed"
`,
  'apps/good.yaml': release(
    'good',
    './charts/hello',
    `  targetNamespace: team
  valuesFrom:
    - kind: ConfigMap
      name: good-values
    - kind: ConfigMap
      name: good-values
      valuesKey: greeting
      targetPath: extra.greeting
`,
  ),
  'apps/inline.yaml': release('inline', './charts/hello', '  values:\n    message: inline wins\n'),
  'apps/bad-values.yaml': release(
    'bad-values',
    './charts/hello',
    '  valuesFrom:\n    - kind: ConfigMap\n      name: bad-values\n',
  ),
  'apps/fails.yaml': release('fails', './charts/broken'),
  'apps/remote.yaml': `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: closed
  namespace: apps
spec:
  interval: 1h
  url: http://127.0.0.1:9/charts
---
${release('remote', 'hello').replace('kind: GitRepository\n        name: flux-system\n        namespace: flux-system', 'kind: HelmRepository\n        name: closed')}`,
};

describe('HelmReleases rendered by the builtin engine', () => {
  let repo: TestRepo;
  let cluster: RenderedCluster;
  const producer = (name: string) =>
    cluster.producers.find((p) => p.kind === 'HelmRelease' && p.name === name);
  const objectsOf = (name: string) =>
    cluster.objects.filter((o) => o.producer.kind === 'HelmRelease' && o.producer.name === name);

  beforeAll(async () => {
    repo = makeRepo(FILES);
    cluster = await builtinEngine().render({ repoDir: repo.dir, entry: '.', sources: [] });
  });
  afterAll(() => repo.remove());

  it('inflates a release into its chart objects, in its target namespace, with the Flux release name', () => {
    expect(producer('good')?.error).toBeUndefined();
    const [configMap, ...rest] = objectsOf('good');
    expect(rest).toEqual([]);
    expect(configMap?.manifest).toMatchObject({
      kind: 'ConfigMap',
      metadata: {
        name: 'team-good-hello',
        namespace: 'team',
        labels: {
          'helm.toolkit.fluxcd.io/name': 'good',
          'helm.toolkit.fluxcd.io/namespace': 'apps',
        },
      },
      data: { message: 'from-configmap' },
    });
    expect(configMap?.file).toBe('charts/hello/templates/configmap.yaml');
  });

  it('lets inline values win over the chart defaults', () => {
    expect(objectsOf('inline')[0]?.manifest['data']).toEqual({ message: 'inline wins' });
  });

  it.each([
    ['remote', /^chart unavailable: .*offline/],
    ['bad-values', /ConfigMap .*bad-values.*not valid YAML/],
    ['fails', /a tag is required/],
  ])('reports %s as its own error and renders nothing for it', (name, message) => {
    expect(producer(name)?.error).toMatch(message);
    expect(objectsOf(name)).toEqual([]);
    const errors = cluster.errors.filter(
      (e) => e.producer.kind === 'HelmRelease' && e.producer.name === name,
    );
    expect(errors).toHaveLength(1);
  });

  it('keeps every HelmRelease object itself with the Kustomization that applies it', () => {
    const applied = cluster.objects
      .filter((o) => o.manifest['kind'] === 'HelmRelease')
      .map(
        (o) =>
          `${o.producer.kind}/${o.producer.name}:${String((o.manifest['metadata'] as { name: string }).name)}`,
      );
    expect(applied.sort()).toEqual(
      ['bad-values', 'fails', 'good', 'inline', 'remote'].map((n) => `Kustomization/apps:${n}`),
    );
  });

  it('attributes every chart object to its HelmRelease in the JSON output', () => {
    const json = JSON.parse(renderToJson(cluster)) as {
      objects: Array<{
        producer: { kind: string; name: string };
        manifest: { metadata: { labels?: Record<string, string> } };
      }>;
    };
    const chartObjects = json.objects.filter(
      (o) => o.manifest.metadata.labels?.['helm.toolkit.fluxcd.io/name'],
    );
    expect(chartObjects.length).toBe(2);
    for (const o of chartObjects) {
      expect(o.producer).toEqual({
        kind: 'HelmRelease',
        namespace: 'apps',
        name: o.manifest.metadata.labels?.['helm.toolkit.fluxcd.io/name'],
      });
    }
  });
});
