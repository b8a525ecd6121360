/**
 * source-watcher's ArtifactGenerator with real kustomize: an ExternalArtifact whose
 * generator copies from this repository is built by its copy operations, and the
 * Kustomizations that read it render from that tree; one whose sources lie outside the
 * repository, or whose copies fluxlens does not build, is a producer not assessed, named
 * with its generator, in the render and in the review.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { objectMeta, type RenderedCluster } from '../../src/model/render.js';
import { analyzeBranches, builtinEngine } from '../support/render.js';
import {
  bootstrap,
  makeRepo,
  type RepoFiles,
  type TestRepo,
  yamlStream as yaml,
} from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const configMap = (name: string, namespace = 'apps') =>
  yaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: '1' } });

function generator(
  name: string,
  sources: object[],
  artifacts: Array<{ name: string; copy: object[] }>,
): object {
  return {
    apiVersion: 'source.extensions.fluxcd.io/v1beta1',
    kind: 'ArtifactGenerator',
    metadata: { name, namespace: 'flux-system' },
    spec: { sources, artifacts },
  };
}

function fromArtifact(name: string, path: string): object {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      interval: '30m',
      path,
      prune: true,
      sourceRef: { kind: 'ExternalArtifact', name },
    },
  };
}

const REPO = { alias: 'repo', kind: 'GitRepository', name: 'flux-system' };

/** A monorepo decomposed into two artifacts, as source-watcher's own example does. */
const FILES: RepoFiles = {
  'clusters/prod/flux-system/gotk-sync.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/apps.yaml': yaml(
    generator(
      'monorepo',
      [REPO],
      [
        { name: 'frontend', copy: [{ from: '@repo/deploy/frontend/**', to: '@artifact/' }] },
        {
          name: 'backend',
          copy: [
            { from: '@repo/deploy/backend/*.yaml', to: '@artifact/backend/' },
            { from: '@repo/deploy/common/settings.yaml', to: '@artifact/backend/settings.yaml' },
          ],
        },
      ],
    ),
    fromArtifact('frontend', './'),
    fromArtifact('backend', './backend'),
  ),
  'deploy/frontend/web.yaml': configMap('web'),
  'deploy/frontend/extra/extra.yaml': configMap('extra'),
  'deploy/backend/api.yaml': configMap('api'),
  'deploy/backend/nested/not-copied.yaml': configMap('not-copied'),
  'deploy/common/settings.yaml': configMap('common-settings'),
};

async function render(files: RepoFiles): Promise<RenderedCluster> {
  const repo = makeRepo(files);
  repos.push(repo);
  return builtinEngine().render({ repoDir: repo.dir, entry: 'clusters/prod', sources: [] });
}

const objectsOf = (cluster: RenderedCluster, producer: string) =>
  cluster.objects
    .filter((o) => o.producer.name === producer)
    .map((o) => `${objectMeta(o.manifest).name} <- ${o.file ?? ''}`)
    .sort();

describe('an ExternalArtifact generated from this repository', () => {
  it('renders the Kustomizations that read it from the tree its copies build', async () => {
    const cluster = await render(FILES);
    expect(cluster.errors).toEqual([]);
    expect(objectsOf(cluster, 'frontend')).toEqual([
      'extra <- ExternalArtifact/flux-system/frontend:extra/extra.yaml',
      'web <- ExternalArtifact/flux-system/frontend:web.yaml',
    ]);
    // `*` stays in its folder; a single file lands under the name `to` gives it.
    expect(objectsOf(cluster, 'backend')).toEqual([
      'api <- ExternalArtifact/flux-system/backend:backend/api.yaml',
      'common-settings <- ExternalArtifact/flux-system/backend:backend/settings.yaml',
    ]);
    const backend = cluster.producers.find((p) => p.name === 'backend');
    expect(backend).toMatchObject({
      source: 'ExternalArtifact/flux-system/backend',
      path: 'backend',
    });
  });

  it('counts the repository files its copies took as read, and no file it left out', async () => {
    const cluster = await render(FILES);
    const read = cluster.reads?.files ?? [];
    expect(read).toEqual(
      expect.arrayContaining([
        'deploy/frontend/web.yaml',
        'deploy/frontend/extra/extra.yaml',
        'deploy/backend/api.yaml',
        'deploy/common/settings.yaml',
      ]),
    );
    expect(read).not.toContain('deploy/backend/nested/not-copied.yaml');
    expect(read.some((f) => f.startsWith('ExternalArtifact/'))).toBe(false);
  });

  it('copies a folder as cp -r does, leaves out what exclude names and merges YAML with Merge', async () => {
    const cluster = await render({
      ...FILES,
      'clusters/prod/apps.yaml': yaml(
        generator(
          'monorepo',
          [REPO],
          [
            {
              name: 'site',
              copy: [
                { from: '@repo/site/', to: '@artifact/', exclude: ['*.txt.yaml', 'drafts/**'] },
                {
                  from: '@repo/overrides/web.yaml',
                  to: '@artifact/site/web.yaml',
                  strategy: 'Merge',
                },
              ],
            },
          ],
        ),
        fromArtifact('site', './site'),
      ),
      'site/web.yaml': yaml({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'web', namespace: 'apps' },
        data: { a: '1', b: '1' },
      }),
      'site/notes.txt.yaml': configMap('notes'),
      'site/drafts/draft.yaml': configMap('draft'),
      'site/live/live.yaml': configMap('live'),
      'overrides/web.yaml': yaml({ data: { b: '2', c: '3' } }),
    });
    expect(cluster.errors).toEqual([]);
    expect(objectsOf(cluster, 'site')).toEqual([
      'live <- ExternalArtifact/flux-system/site:site/live/live.yaml',
      'web <- ExternalArtifact/flux-system/site:site/web.yaml',
    ]);
    const web = cluster.objects.find((o) => objectMeta(o.manifest).name === 'web');
    expect(web?.manifest['data']).toEqual({ a: '1', b: '2', c: '3' });
  });

  it('fails the Kustomization, as source-watcher fails the artifact, when a copy matches no file', async () => {
    const cluster = await render({
      ...FILES,
      'clusters/prod/apps.yaml': yaml(
        generator(
          'monorepo',
          [REPO],
          [{ name: 'frontend', copy: [{ from: '@repo/deploy/missing/**', to: '@artifact/' }] }],
        ),
        fromArtifact('frontend', './'),
      ),
    });
    expect(cluster.errors).toEqual([
      expect.objectContaining({
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'frontend' },
        message:
          "ExternalArtifact flux-system/frontend from ArtifactGenerator flux-system/monorepo: copy from '@repo/deploy/missing/**' matches no file",
      }),
    ]);
  });
});

describe('an ExternalArtifact fluxlens cannot build', () => {
  const OUTSIDE: RepoFiles = {
    'clusters/prod/flux-system/gotk-sync.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/upstream.yaml': yaml(
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'OCIRepository',
        metadata: { name: 'upstream', namespace: 'flux-system' },
        spec: { interval: '10m', url: 'oci://ghcr.io/example/manifests', ref: { tag: 'latest' } },
      },
      generator(
        'upstream',
        [{ alias: 'oci', kind: 'OCIRepository', name: 'upstream' }],
        [{ name: 'platform', copy: [{ from: '@oci/platform/**', to: '@artifact/' }] }],
      ),
      fromArtifact('platform', './'),
    ),
  };

  it('skips one whose sources are outside the repository, naming generator and sources', async () => {
    const cluster = await render(OUTSIDE);
    expect(cluster.producers.find((p) => p.name === 'platform')?.skipped).toBe(
      'ExternalArtifact flux-system/platform from ArtifactGenerator flux-system/upstream (sources outside the repository: OCIRepository/flux-system/upstream)',
    );
  });

  it('skips one whose copies use a strategy fluxlens does not build', async () => {
    const cluster = await render({
      ...FILES,
      'clusters/prod/apps.yaml': yaml(
        generator(
          'monorepo',
          [REPO],
          [
            {
              name: 'frontend',
              copy: [
                { from: '@repo/deploy/frontend/*.yaml', to: '@artifact/', strategy: 'Extract' },
              ],
            },
          ],
        ),
        fromArtifact('frontend', './'),
      ),
    });
    expect(cluster.producers.find((p) => p.name === 'frontend')?.skipped).toBe(
      'ExternalArtifact flux-system/frontend from ArtifactGenerator flux-system/monorepo uses copy strategy Extract, which fluxlens does not build',
    );
  });

  it('lists a changed one as not assessed in the review, never "no changes"', async () => {
    const repo = makeRepo(OUTSIDE, { git: true });
    repos.push(repo);
    const base = repo.commit('base');
    repo.write({
      'clusters/prod/upstream.yaml': OUTSIDE['clusters/prod/upstream.yaml']
        ?.toString()
        .replace('path: ./', 'path: ./prod') as string,
    });
    const head = repo.commit('deploy the prod overlay');
    const result = await analyzeBranches(repo.dir, base, head);
    expect(result.clusters[0]?.unassessed).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'platform' },
        side: 'both',
        reason:
          'ExternalArtifact flux-system/platform from ArtifactGenerator flux-system/upstream (sources outside the repository)',
      },
    ]);
    expect(result.verdict.unassessed).toBe(1);
    expect(result.verdict.level).not.toBe('none');
  });
});
