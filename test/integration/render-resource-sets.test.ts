/**
 * flux-operator ResourceSets with real kustomize: a Kustomization applies ResourceSets, each
 * expands its input sets through its templates into the objects it applies, and the
 * Kustomizations among those render in a later round. Sets whose inputs come from an API or
 * whose templates use what fluxlens does not evaluate are not assessed, with the reason.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { objectMeta, type Manifest, type RenderedCluster } from '../../src/model/render.js';
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

function resourceSet(name: string, spec: Record<string, unknown>, annotations = {}): object {
  return {
    apiVersion: 'fluxcd.controlplane.io/v1',
    kind: 'ResourceSet',
    metadata: { name, namespace: 'flux-system', annotations },
    spec,
  };
}

/** Tenants as the d2 fleet onboards them: a namespace, an account and a Kustomization each. */
const TENANTS = resourceSet('tenants', {
  commonMetadata: { labels: { 'toolkit.fluxcd.io/tenant': 'managed' } },
  inputs: [
    { tenant: 'team1', role: 'admin' },
    { tenant: 'team2', role: 'view' },
  ],
  resources: [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: '<< inputs.tenant >>' } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'flux', namespace: '<< inputs.tenant >>' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: '<< inputs.role >>',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'flux', namespace: '<< inputs.tenant >>' }],
    },
    {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'apps', namespace: '<< inputs.tenant >>' },
      spec: {
        interval: '30m',
        path: './apps/<< inputs.tenant >>',
        prune: true,
        serviceAccountName: 'flux',
        targetNamespace: '<< inputs.tenant >>',
        sourceRef: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'shared', namespace: 'flux-system' },
      data: { owner: 'platform' },
    },
  ],
});

/** A template that ranges and branches, its inputs from a Static provider, permuted. */
const BUNDLES = yaml(
  {
    apiVersion: 'fluxcd.controlplane.io/v1',
    kind: 'ResourceSetInputProvider',
    metadata: { name: 'cluster-info', namespace: 'flux-system' },
    spec: { type: 'Static', defaultValues: { env: 'prod', replicas: '3' } },
  },
  resourceSet('bundles', {
    inputStrategy: { name: 'Permute' },
    inputs: [{ bundle: 'addons', decryption: false, components: ['ingress', 'dns'] }],
    inputsFrom: [{ kind: 'ResourceSetInputProvider', name: 'cluster-info' }],
    resourcesTemplate: `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: << inputs.bundles.bundle >>-<< inputs.cluster_info.env >>
  namespace: flux-system
data:
  replicas: << inputs.cluster_info.replicas | quote >>
  provider: << inputs.cluster_info.provider.kind >>
<<- range $c := inputs.bundles.components >>
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: << $c >>
  namespace: flux-system
  <<- if inputs.bundles.decryption >>
  annotations:
    sops: enabled
  <<- end >>
data:
  component: << $c | upper >>
<<- end >>
`,
  }),
);

const FILES: RepoFiles = {
  'clusters/prod/flux-system/gotk-sync.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/tenants.yaml': yaml(fluxKustomization('tenants', './tenants')),
  'tenants/tenants.yaml': yaml(TENANTS),
  'tenants/bundles.yaml': BUNDLES,
  'apps/team1/web.yaml': yaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web' },
    data: { team: 'one' },
  }),
  'apps/team2/web.yaml': yaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web' },
    data: { team: 'two' },
  }),
};

async function render(files: RepoFiles): Promise<RenderedCluster> {
  const repo = makeRepo(files);
  repos.push(repo);
  return builtinEngine().render({ repoDir: repo.dir, entry: 'clusters/prod', sources: [] });
}

const find = (cluster: RenderedCluster, kind: string, namespace: string, name: string) =>
  cluster.objects.find((o) => {
    const m = objectMeta(o.manifest);
    return m.kind === kind && (m.namespace ?? '') === namespace && m.name === name;
  });

const namesBy = (cluster: RenderedCluster, producer: string) =>
  cluster.objects
    .filter((o) => o.producer.kind === 'ResourceSet' && o.producer.name === producer)
    .map((o) => {
      const m = objectMeta(o.manifest);
      return `${m.kind}/${m.namespace ?? ''}/${m.name}`;
    })
    .sort();

describe('a ResourceSet', () => {
  it('applies what its inline inputs expand to, shared objects once, with its common metadata', async () => {
    const cluster = await render(FILES);
    expect(cluster.errors).toEqual([]);
    expect(namesBy(cluster, 'tenants')).toEqual([
      'ConfigMap/flux-system/shared',
      'Kustomization/team1/apps',
      'Kustomization/team2/apps',
      'Namespace//team1',
      'Namespace//team2',
      'RoleBinding/team1/flux',
      'RoleBinding/team2/flux',
    ]);
    const binding = find(cluster, 'RoleBinding', 'team2', 'flux')?.manifest as Manifest;
    expect(binding['roleRef']).toMatchObject({ name: 'view' });
    expect(objectMeta(binding).labels).toEqual({ 'toolkit.fluxcd.io/tenant': 'managed' });
    const set = cluster.producers.find((p) => p.kind === 'ResourceSet' && p.name === 'tenants');
    expect(set).toMatchObject({
      prune: true,
      suspend: false,
      definedIn: { parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'tenants' } },
    });
  });

  it('renders the Kustomizations it expands to in a later round', async () => {
    const cluster = await render(FILES);
    const web = find(cluster, 'ConfigMap', 'team2', 'web');
    expect(web?.producer).toEqual({ kind: 'Kustomization', namespace: 'team2', name: 'apps' });
    expect(web?.file).toBe('apps/team2/web.yaml');
    expect(
      cluster.producers.find((p) => p.namespace === 'team1' && p.name === 'apps'),
    ).toMatchObject({
      path: 'apps/team1',
      definedIn: { parent: { kind: 'ResourceSet', namespace: 'flux-system', name: 'tenants' } },
    });
  });

  it('permutes inline inputs with a Static provider through a template that ranges and branches', async () => {
    const cluster = await render(FILES);
    expect(namesBy(cluster, 'bundles')).toEqual([
      'ConfigMap/flux-system/addons-prod',
      'ConfigMap/flux-system/dns',
      'ConfigMap/flux-system/ingress',
    ]);
    expect(find(cluster, 'ConfigMap', 'flux-system', 'addons-prod')?.manifest['data']).toEqual({
      replicas: '3',
      provider: 'ResourceSetInputProvider',
    });
    const dns = find(cluster, 'ConfigMap', 'flux-system', 'dns')?.manifest as Manifest;
    expect(dns['data']).toEqual({ component: 'DNS' });
    expect(objectMeta(dns).annotations).toEqual({});
  });

  it.each([
    [
      'its inputs come from a provider that lists pull requests',
      yaml(
        {
          apiVersion: 'fluxcd.controlplane.io/v1',
          kind: 'ResourceSetInputProvider',
          metadata: { name: 'previews', namespace: 'flux-system' },
          spec: { type: 'GitHubPullRequest', url: 'https://github.com/example/app' },
        },
        resourceSet('previews', {
          inputsFrom: [{ kind: 'ResourceSetInputProvider', name: 'previews' }],
          resources: [
            { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pr-<< inputs.id >>' } },
          ],
        }),
      ),
      'its inputs come from ResourceSetInputProvider flux-system/previews of type GitHubPullRequest, which fluxlens does not fetch',
    ],
    [
      'its template calls a function fluxlens does not evaluate',
      yaml(
        resourceSet('slugs', {
          inputs: [{ tenant: 'Team One' }],
          resources: [
            {
              apiVersion: 'v1',
              kind: 'Namespace',
              metadata: { name: '<< inputs.tenant | slugify >>' },
            },
          ],
        }),
      ),
      'template uses `slugify`, which fluxlens does not evaluate',
    ],
    [
      'its template names objects by the id the cluster gives',
      yaml(
        resourceSet('ids', {
          inputs: [{ tenant: 'team1' }],
          resources: [
            { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns-<< inputs.id >>' } },
          ],
        }),
      ),
      'template uses `inputs.id` (flux-operator derives it from the cluster), which fluxlens does not evaluate',
    ],
  ])('is not assessed when %s', async (_case, file, reason) => {
    const cluster = await render({ ...FILES, 'tenants/extra.yaml': file });
    const skipped = cluster.producers.filter((p) => p.skipped !== undefined);
    expect(skipped.map((p) => [p.kind, p.name, p.skipped])).toEqual([
      ['ResourceSet', expect.any(String), reason],
    ]);
    // The other sets still expand.
    expect(namesBy(cluster, 'tenants')).toHaveLength(7);
  });

  it('fails, as flux-operator does, when a template reads an input no set has', async () => {
    const cluster = await render({
      ...FILES,
      'tenants/extra.yaml': yaml(
        resourceSet('typo', {
          inputs: [{ tenant: 'team1' }],
          resources: [
            { apiVersion: 'v1', kind: 'Namespace', metadata: { name: '<< inputs.tenat >>' } },
          ],
        }),
      ),
    });
    expect(cluster.errors).toEqual([
      expect.objectContaining({
        producer: { kind: 'ResourceSet', namespace: 'flux-system', name: 'typo' },
        message: 'template: map has no entry for key "tenat"',
      }),
    ]);
  });
});

describe('a pull request changing a ResourceSet', () => {
  it('shows the objects its inputs change, under the ResourceSet', async () => {
    const repo = makeRepo(FILES, { git: true });
    repos.push(repo);
    const base = repo.commit('base');
    repo.write({ 'tenants/tenants.yaml': yaml(TENANTS).replace('role: view', 'role: edit') });
    const head = repo.commit('team2 may edit');
    const result = await analyzeBranches(repo.dir, base, head);
    const changes = result.changes.map((c) => [c.kind, c.namespace, c.name, c.status, c.producer]);
    expect(changes.sort()).toEqual([
      [
        'ResourceSet',
        'flux-system',
        'tenants',
        'changed',
        { kind: 'Kustomization', namespace: 'flux-system', name: 'tenants' },
      ],
      [
        'RoleBinding',
        'team2',
        'flux',
        'changed',
        { kind: 'ResourceSet', namespace: 'flux-system', name: 'tenants' },
      ],
    ]);
    expect(result.clusters[0]?.unassessed).toEqual([]);
  });

  it('lists a changed set it cannot expand as not assessed, with why', async () => {
    const slugs = (tenant: string) =>
      yaml(
        resourceSet('slugs', {
          inputs: [{ tenant }],
          resources: [
            {
              apiVersion: 'v1',
              kind: 'Namespace',
              metadata: { name: '<< inputs.tenant | slugify >>' },
            },
          ],
        }),
      );
    const repo = makeRepo({ ...FILES, 'tenants/slugs.yaml': slugs('Team One') }, { git: true });
    repos.push(repo);
    const base = repo.commit('base');
    repo.write({ 'tenants/slugs.yaml': slugs('Team Two') });
    const head = repo.commit('rename the tenant');
    const result = await analyzeBranches(repo.dir, base, head);
    expect(result.clusters[0]?.unassessed).toEqual([
      {
        producer: { kind: 'ResourceSet', namespace: 'flux-system', name: 'slugs' },
        side: 'both',
        reason: 'template uses `slugify`, which fluxlens does not evaluate',
      },
    ]);
    expect(result.verdict.level).not.toBe('none');
  });
});
