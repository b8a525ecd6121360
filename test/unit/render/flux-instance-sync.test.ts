/**
 * The source and Kustomization flux-operator creates for a FluxInstance's spec.sync, and
 * which of them discovery adds for the reviewed tree.
 */
import { describe, expect, it } from 'vitest';
import { type Discovery, instanceSync, withInstanceSyncs } from '../../../src/render/flux/index.js';
import type { Manifest } from '../../../src/model/render.js';

function instance(sync: Record<string, unknown> | undefined, namespace?: string): Manifest {
  return {
    apiVersion: 'fluxcd.controlplane.io/v1',
    kind: 'FluxInstance',
    metadata: { name: 'flux', ...(namespace !== undefined ? { namespace } : {}) },
    spec: { distribution: { version: '2.x' }, ...(sync ? { sync } : {}) },
  };
}

const GIT = { kind: 'GitRepository', url: 'https://example.com/fleet.git', ref: 'refs/heads/main' };

describe('the objects flux-operator creates for a FluxInstance', () => {
  it('are a GitRepository and a pruning Kustomization named after the namespace', () => {
    expect(instanceSync(instance({ ...GIT, path: './clusters/prod' }, 'flux-system'))).toEqual({
      path: 'clusters/prod',
      source: {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'GitRepository',
        metadata: { name: 'flux-system', namespace: 'flux-system' },
        spec: { interval: '1m', url: GIT.url, ref: { name: 'refs/heads/main' } },
      },
      kustomization: {
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        metadata: { name: 'flux-system', namespace: 'flux-system' },
        spec: {
          interval: '10m0s',
          path: './clusters/prod',
          prune: true,
          sourceRef: { kind: 'GitRepository', name: 'flux-system' },
        },
      },
    });
  });

  it('are named by spec.sync.name and read an OCI artifact by tag when told', () => {
    const sync = instanceSync(
      instance(
        {
          kind: 'OCIRepository',
          url: 'oci://ghcr.io/x/fleet',
          ref: 'latest',
          path: '.',
          name: 'fleet',
          pullSecret: 'ghcr',
        },
        'ops',
      ),
    );
    expect(sync?.source).toMatchObject({
      kind: 'OCIRepository',
      metadata: { name: 'fleet', namespace: 'ops' },
      spec: { url: 'oci://ghcr.io/x/fleet', ref: { tag: 'latest' }, secretRef: { name: 'ghcr' } },
    });
    expect(sync?.kustomization['spec']).toMatchObject({
      sourceRef: { kind: 'OCIRepository', name: 'fleet' },
    });
  });

  it.each([
    ['no spec.sync', instance(undefined)],
    ['a sync without a path', instance({ ...GIT })],
    ['another kind', { ...instance({ ...GIT, path: '.' }), kind: 'ResourceSet' }],
  ])('are none for %s', (_case, manifest) => {
    expect(instanceSync(manifest)).toBeUndefined();
  });
});

describe('discovery of a FluxInstance', () => {
  const found = (entry: string, path: string, extra: Partial<Discovery> = {}): Discovery => ({
    entry,
    kustomizations: [],
    helmReleases: [],
    sources: [],
    configData: [],
    instances: [{ manifest: instance({ ...GIT, path }, 'flux-system'), file: 'i.yaml', line: 3 }],
    ...extra,
  });
  const names = (d: Discovery): string[] =>
    [...d.kustomizations, ...d.sources].map(
      (f) => `${String(f.manifest['kind'])} ${f.file}:${f.line}`,
    );

  it.each([
    ['the entry', 'clusters/prod', './clusters/prod/', 2],
    ['a folder under the entry', 'clusters', 'clusters/prod', 2],
    ['anything, from the root', '.', 'clusters/prod', 2],
    ['another folder', 'clusters/prod', 'clusters/staging', 0],
  ])('adds its sync when it syncs %s', (_case, entry, path, count) => {
    const d = withInstanceSyncs(found(entry, path));
    expect(names(d)).toHaveLength(count);
    if (count > 0) expect(names(d)).toEqual(['Kustomization i.yaml:3', 'GitRepository i.yaml:3']);
  });

  it('leaves a Kustomization and source that files define under the same names', () => {
    const written = (kind: string): Discovery['sources'][number] => ({
      manifest: { kind, metadata: { name: 'flux-system', namespace: 'flux-system' } },
      file: 'gotk-sync.yaml',
      line: 1,
    });
    const d = withInstanceSyncs(
      found('clusters/prod', 'clusters/prod', {
        kustomizations: [written('Kustomization')],
        sources: [written('GitRepository')],
      }),
    );
    expect(names(d)).toEqual(['Kustomization gotk-sync.yaml:1', 'GitRepository gotk-sync.yaml:1']);
  });
});
