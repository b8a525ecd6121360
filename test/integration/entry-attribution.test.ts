/**
 * Whose are the entry's own files? The cluster's entry folder is applied by its bootstrap
 * Kustomization: flux-system from `flux bootstrap`'s gotk-sync.yaml, or the one
 * flux-operator creates from a FluxInstance's spec.sync. Objects written directly in the
 * entry, and a PR's changes to them, belong to that producer. When nothing in the
 * repository applies the entry (a placeholder gotk-sync.yaml, a FluxInstance from a chart),
 * the render assumes the Kustomization bootstrap writes, so the entry's own Kustomizations
 * and controller manifests are objects that a PR changes like any other.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { objectMeta, producerKey, type RenderedCluster } from '../../src/model/render.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { analyzeBranches, builtinEngine } from '../support/render.js';
import {
  bootstrap,
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

function fluxInstance(sync: Record<string, unknown>, metadata = {}): string {
  return yaml({
    apiVersion: 'fluxcd.controlplane.io/v1',
    kind: 'FluxInstance',
    metadata: { name: 'flux', namespace: 'flux-system', ...metadata },
    spec: {
      distribution: { version: '2.x', registry: 'ghcr.io/fluxcd' },
      sync: { kind: 'GitRepository', url: `${REPO_URL}.git`, ref: 'refs/heads/main', ...sync },
    },
  });
}

/** The cluster's own files beside its bootstrap: settings, and a Kustomization for apps. */
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

/** What `flux bootstrap` writes to clusters/prod/flux-system. */
const GOTK: RepoFiles = {
  'clusters/prod/flux-system/gotk-components.yaml': yaml({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'flux-system' },
  }),
  'clusters/prod/flux-system/gotk-sync.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/flux-system/kustomization.yaml':
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n' +
    'resources:\n  - gotk-components.yaml\n  - gotk-sync.yaml\n',
};

/** bootstrap's kustomization.yaml, patching the controllers' arguments as Flux's docs show. */
function CONTROLLER_PATCH(flag: string): string {
  return (
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n' +
    'resources:\n  - gotk-components.yaml\n  - gotk-sync.yaml\npatches:\n' +
    `  - patch: |\n      - op: add\n        path: /spec/template/spec/containers/0/args/-\n        value: ${flag}\n` +
    '    target:\n      kind: Deployment\n'
  );
}

/** A flux-operator cluster: the FluxInstance in the entry, syncing the entry. */
const OPERATOR: RepoFiles = {
  'clusters/prod/flux-system/flux-instance.yaml': fluxInstance({ path: 'clusters/prod' }),
  'clusters/prod/flux-system/kustomization.yaml': 'resources:\n  - flux-instance.yaml\n',
};

function producerRef(name: string) {
  return { kind: 'Kustomization', namespace: 'flux-system', name };
}

async function render(files: RepoFiles, entry = 'clusters/prod'): Promise<RenderedCluster> {
  const repo = makeRepo(files);
  repos.push(repo);
  return builtinEngine().render({ repoDir: repo.dir, entry, sources: [], repoUrl: REPO_URL });
}

/** `Kind/name <- producer name` for every object, sorted. */
function attribution(cluster: RenderedCluster): string[] {
  return cluster.objects
    .map(
      (o) => `${objectMeta(o.manifest).kind}/${objectMeta(o.manifest).name} <- ${o.producer.name}`,
    )
    .sort();
}

describe("the entry's own files", () => {
  it('belong to the bootstrap Kustomization flux-system that gotk-sync.yaml defines', async () => {
    const cluster = await render({ ...GOTK, ...ENTRY });
    expect(cluster.errors).toEqual([]);
    expect(attribution(cluster)).toEqual([
      'ConfigMap/cluster-settings <- flux-system',
      'ConfigMap/web <- apps',
      'GitRepository/flux-system <- flux-system',
      'Kustomization/apps <- flux-system',
      'Kustomization/flux-system <- flux-system',
      'Namespace/flux-system <- flux-system',
    ]);
    // It applies the entry, which holds itself: one producer, and its own object once.
    const bootstraps = cluster.producers.filter((p) => p.name === 'flux-system');
    expect(bootstraps).toMatchObject([
      {
        kind: 'Kustomization',
        path: 'clusters/prod',
        definedIn: { file: 'clusters/prod/flux-system/gotk-sync.yaml' },
      },
    ]);
    expect(cluster.producers.find((p) => p.name === 'apps')?.definedIn).toEqual({
      parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
    });
  });

  it("belong to the Kustomization flux-operator creates from a FluxInstance's sync", async () => {
    const cluster = await render({ ...OPERATOR, ...ENTRY });
    expect(cluster.errors).toEqual([]);
    expect(attribution(cluster)).toEqual([
      'ConfigMap/cluster-settings <- flux-system',
      'ConfigMap/web <- apps',
      'FluxInstance/flux <- flux-system',
      'Kustomization/apps <- flux-system',
    ]);
    // Named after the instance's namespace, as the operator names it; defined by the
    // instance's file, pruning, reading this repository.
    expect(cluster.producers.filter((p) => p.name === 'flux-system')).toEqual([
      expect.objectContaining({
        kind: 'Kustomization',
        namespace: 'flux-system',
        path: 'clusters/prod',
        prune: true,
        source: 'GitRepository/flux-system/flux-system',
        definedIn: { file: 'clusters/prod/flux-system/flux-instance.yaml', line: 1 },
      }),
    ]);
  });

  it('belong to the Kustomization named by spec.sync.name in the instance namespace', async () => {
    const cluster = await render({
      ...ENTRY,
      'clusters/prod/flux-instance.yaml': fluxInstance(
        { path: './clusters/prod', name: 'fleet' },
        { namespace: 'flux-operator' },
      ),
    });
    expect(cluster.errors).toEqual([]);
    const fleet = cluster.producers.find((p) => p.name === 'fleet');
    expect(fleet).toMatchObject({
      namespace: 'flux-operator',
      source: 'GitRepository/flux-operator/fleet',
    });
    const settingsObject = cluster.objects.find(
      (o) => objectMeta(o.manifest).name === 'cluster-settings',
    );
    expect(settingsObject?.producer).toEqual({
      kind: 'Kustomization',
      namespace: 'flux-operator',
      name: 'fleet',
    });
  });

  it('keep the bootstrap Kustomization a file defines when a FluxInstance syncs the same path', async () => {
    const cluster = await render({
      ...GOTK,
      ...ENTRY,
      'clusters/prod/flux-system/flux-instance.yaml': fluxInstance({ path: 'clusters/prod' }),
    });
    expect(cluster.errors).toEqual([]);
    expect(cluster.producers.filter((p) => p.name === 'flux-system')).toMatchObject([
      { definedIn: { file: 'clusters/prod/flux-system/gotk-sync.yaml' } },
    ]);
  });

  it('belong to a flux-system Kustomization assumed as `flux bootstrap` writes it when nothing applies the entry', async () => {
    // A FluxInstance syncing another folder does not apply this one.
    const cluster = await render({
      ...ENTRY,
      'clusters/prod/flux-instance.yaml': fluxInstance({ path: 'clusters/staging' }),
    });
    expect(cluster.errors).toEqual([]);
    expect(attribution(cluster)).toEqual([
      'ConfigMap/cluster-settings <- flux-system',
      'ConfigMap/web <- apps',
      'FluxInstance/flux <- flux-system',
      'Kustomization/apps <- flux-system',
    ]);
    expect(cluster.producers.map(producerKey)).toEqual([
      'Kustomization/flux-system/apps',
      'Kustomization/flux-system/flux-system',
    ]);
    const [apps, bootstrapKs] = cluster.producers;
    expect(apps?.definedIn).toEqual({ parent: producerRef('flux-system') });
    expect(bootstrapKs).toMatchObject({
      path: 'clusters/prod',
      source: 'GitRepository/flux-system/flux-system',
      definedIn: { file: '' },
      byConvention: 'flux-bootstrap',
    });
  });

  it('assume no flux-system Kustomization over the repository root', async () => {
    const cluster = await render(
      {
        'apps.yaml': yaml(fluxKustomization('apps', './apps')),
        'apps/web.yaml': ENTRY['apps/web.yaml'] as string,
      },
      '.',
    );
    expect(cluster.errors).toEqual([]);
    expect(cluster.producers.map(producerKey)).toEqual(['Kustomization/flux-system/apps']);
    expect(cluster.producers[0]?.definedIn).toEqual({ file: 'apps.yaml', line: 1 });
  });
});

describe('a pull request changing a file directly in the entry', () => {
  it.each([
    ['flux bootstrap', GOTK],
    ['a FluxInstance', OPERATOR],
  ])('shows the change under the bootstrap producer (%s)', async (_layout, bootstrapFiles) => {
    const repo = makeRepo({ ...bootstrapFiles, ...ENTRY }, { git: true });
    repos.push(repo);
    const base = repo.commit('base');
    repo.write({ 'clusters/prod/cluster-settings.yaml': settings('b.example.org') });
    const head = repo.commit('move the cluster domain');
    const result = await analyzeBranches(repo.dir, base, head);

    const json = JSON.parse(renderJson(result)) as {
      changes: Array<Record<string, unknown>>;
      clusters: Array<{ producers: string[] }>;
    };
    expect(json.changes).toEqual([
      expect.objectContaining({
        kind: 'ConfigMap',
        name: 'cluster-settings',
        status: 'changed',
        file: 'clusters/prod/cluster-settings.yaml',
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
      }),
    ]);
    expect(json.clusters[0]?.producers).toEqual(['Kustomization/flux-system/flux-system']);

    const markdown = renderMarkdown(result);
    const block = markdown.slice(
      markdown.indexOf('<code>Kustomization/flux-system/flux-system</code>'),
    );
    expect(block).toContain('1 changed');
    expect(block).toContain('**changed** `ConfigMap/flux-system/cluster-settings`');
    expect(block).toContain('+  DOMAIN: b.example.org');
  });
});

describe('a pull request in a cluster whose folder nothing in the repository applies', () => {
  /** `flux bootstrap`'s files as example repositories commit them: placeholders. */
  const PLACEHOLDERS: RepoFiles = {
    'clusters/prod/flux-system/gotk-components.yaml': '# generated by flux bootstrap\n',
    'clusters/prod/flux-system/gotk-sync.yaml': '# generated by flux bootstrap\n',
    'clusters/prod/flux-system/kustomization.yaml': CONTROLLER_PATCH('--concurrent=20'),
  };

  async function review(before: RepoFiles, after: RepoFiles) {
    const repo = makeRepo(before, { git: true });
    repos.push(repo);
    const base = repo.commit('base');
    repo.write(after);
    const head = repo.commit('change');
    return analyzeBranches(repo.dir, base, head);
  }

  it("shows a top-level Kustomization's new serviceAccountName as a changed object", async () => {
    const apps = fluxKustomization('apps', './apps');
    const impersonating = {
      ...apps,
      spec: { ...(apps['spec'] as object), serviceAccountName: 'ops' },
    };
    const result = await review(
      { ...PLACEHOLDERS, ...ENTRY },
      { 'clusters/prod/apps.yaml': yaml(impersonating) },
    );
    expect(result.verdict.headline).not.toBe('No changes to the rendered cluster');
    expect(result.changes).toEqual([
      expect.objectContaining({
        kind: 'Kustomization',
        name: 'apps',
        status: 'changed',
        producer: producerRef('flux-system'),
      }),
    ]);
    expect(result.clusters[0]?.bootstrapAssumed).toBe('both');
    expect(result.files).toEqual({ read: ['clusters/prod/apps.yaml'], excluded: [], unread: [] });
    expect(renderMarkdown(result)).toContain(
      'Nothing in the repository applies `clusters/prod`: it is rendered as `flux bootstrap` applies it',
    );
  });

  it('lists new controller flags as read by nothing when the controllers are placeholders', async () => {
    const result = await review(
      { ...PLACEHOLDERS, ...ENTRY },
      { 'clusters/prod/flux-system/kustomization.yaml': CONTROLLER_PATCH('--concurrent=40') },
    );
    expect(result.changes).toEqual([]);
    expect(result.files?.unread).toEqual(['clusters/prod/flux-system/kustomization.yaml']);
    expect(result.verdict).toMatchObject({
      level: 'info',
      headline:
        '1 changed file is read by nothing fluxlens renders; No changes to the rendered cluster',
    });
  });

  it("shows new controller flags in flux-system/kustomization.yaml on the controllers' Deployment", async () => {
    const components = yaml({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'kustomize-controller', namespace: 'flux-system' },
      spec: {
        selector: { matchLabels: { app: 'kustomize-controller' } },
        template: {
          metadata: { labels: { app: 'kustomize-controller' } },
          spec: {
            containers: [
              { name: 'manager', image: 'ghcr.io/fluxcd/kc:v1', args: ['--log-level=info'] },
            ],
          },
        },
      },
    });
    const result = await review(
      {
        ...PLACEHOLDERS,
        ...ENTRY,
        'clusters/prod/flux-system/gotk-components.yaml': components,
      },
      { 'clusters/prod/flux-system/kustomization.yaml': CONTROLLER_PATCH('--concurrent=40') },
    );
    expect(result.files?.read).toEqual(['clusters/prod/flux-system/kustomization.yaml']);
    const change = result.changes.find((c) => c.kind === 'Deployment');
    expect(change).toMatchObject({ name: 'kustomize-controller', status: 'changed' });
    expect(change?.diff).toContain('+            - --concurrent=40');
  });
});
