/**
 * A Flux Operator fleet whose sync source is an OCI artifact that CI builds from this very
 * repository: `--source flux-system=<the repository>` makes the review read each side's own
 * files, base and head, never the work tree's (which is neither), with real git and
 * kustomize.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeBranches } from '../support/render.js';
import { makeRepo, type TestRepo, yamlStream as yaml } from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const ociSync = yaml(
  {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'OCIRepository',
    metadata: { name: 'flux-system', namespace: 'flux-system' },
    spec: { interval: '1m', url: 'oci://ghcr.io/example/fleet', ref: { tag: 'latest' } },
  },
  {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: 'tenants', namespace: 'flux-system' },
    spec: {
      interval: '1h',
      path: './tenants',
      prune: true,
      sourceRef: { kind: 'OCIRepository', name: 'flux-system' },
    },
  },
);

const binding = (role: string) =>
  yaml({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'flux', namespace: 'team-a' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: 'flux', namespace: 'team-a' }],
  });

describe('a source mapped to the reviewed repository itself', () => {
  it('reads base and head from their own revisions, not from the work tree', async () => {
    const repo = makeRepo(
      {
        'clusters/prod/flux-system/gotk-sync.yaml': ociSync,
        'tenants/team-a.yaml': binding('admin'),
      },
      { git: true },
    );
    repos.push(repo);
    const base = repo.commit('base');
    repo.write({ 'tenants/team-a.yaml': binding('cluster-admin') });
    const head = repo.commit('head');
    // The work tree holds a third state, which neither side may read.
    repo.write({ 'tenants/team-a.yaml': binding('view') });

    const mapped = await analyzeBranches(repo.dir, base, head, {
      sources: [{ key: 'flux-system', dir: repo.dir }],
    });
    const change = mapped.changes.find((c) => c.id.endsWith('/RoleBinding/team-a/flux'));
    expect(change?.status).toBe('changed');
    expect(change?.diff).toContain('-  name: admin');
    expect(change?.diff).toContain('+  name: cluster-admin');
    expect(change?.diff).not.toContain('view');
    expect(mapped.files?.read).toContain('tenants/team-a.yaml');
    expect(mapped.verdict.level).toBe('danger');

    // Unmapped, the tenants are not rendered, and the file is named as read by nothing.
    const unmapped = await analyzeBranches(repo.dir, base, head);
    expect(unmapped.files?.unread).toEqual(['tenants/team-a.yaml']);
    expect(unmapped.files?.unrendered?.map((u) => u.producer.name)).toContain('tenants');
  });
});
