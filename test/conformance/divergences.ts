/**
 * Places where flux-local's recorded output differs from what Flux itself applies
 * (listed in ../shared/fixtures/flux-local/README.md). Each names the objects it
 * explains and checks that fluxlens does what Flux does there.
 */
import { expect } from 'vitest';
import type { Manifest, RenderedCluster } from '../../src/model/render.js';

export interface Divergence {
  name: string;
  /** Snapshots in which this divergence must appear (so the list cannot go stale). */
  expectedIn: string[];
  explains(key: string, fluxLocal: Manifest | undefined, ours: Manifest | undefined): boolean;
  /** Asserts the Flux behaviour on our side; fails the test when it does not hold. */
  checkFlux(ctx: {
    key: string;
    ours: Manifest | undefined;
    all: Map<string, Manifest>;
    cluster: RenderedCluster;
  }): void;
}

const both = (id: string): string[] => [`test_build_ks[${id}]`, `test_build_ks_new[${id}]`];

/**
 * cluster/apps substitutes SECRET_DOMAIN3 and SECRET_DOMAIN4 from the Secret
 * cluster-secrets (stringData: both "SECRET"). Flux reads the Secret's data; flux-local
 * writes `..PLACEHOLDER_NAME..` instead. With the real value, `${SECRET_DOMAIN3/./-}`
 * has no dot to replace, so both Certificates are named SECRET-staging.
 */
const secretSubstitution: Divergence = {
  name: 'Secret-derived substitution values are real, not placeholders',
  expectedIn: [...both('build-ks'), ...both('build-ks-single'), 'test_build_all[build]'],
  explains: (key, fluxLocal, ours) =>
    (fluxLocal !== undefined && JSON.stringify(fluxLocal).includes('..PLACEHOLDER_')) ||
    (fluxLocal === undefined &&
      ours !== undefined &&
      key.endsWith('cert-manager.io/Certificate//SECRET-staging')),
  checkFlux: ({ all }) => {
    const cert = [...all.entries()].find(([k]) =>
      k.endsWith('cert-manager.io/Certificate//SECRET-staging'),
    )?.[1];
    expect(cert?.['spec']).toEqual({
      commonName: 'SECRET',
      dnsNames: ['SECRET', '*.SECRET'],
      issuerRef: { kind: 'ClusterIssuer', name: 'letsencrypt-staging' },
      secretName: 'SECRET-staging-tls',
    });
  },
};

/**
 * cluster2's GitRepository home-ops-kubernetes (this repository, by URL) excludes
 * everything but `tests/testdata/cluster2/kubernetes`, a folder that does not exist.
 * source-controller packs only what the rule admits, so Flux finds no
 * `tests/testdata/cluster2/flux` and the Kustomization `cluster` fails; flux-local
 * ignores `spec.ignore` and renders the whole tree. (With the rule admitting the tree,
 * the rendering is compared object by object in a test of its own.)
 */
const gitRepositoryIgnore: Divergence = {
  name: "a GitRepository's spec.ignore decides what its Kustomizations can read",
  expectedIn: ['test_build_all[build-cluster2]'],
  explains: (_key, fluxLocal, ours) => fluxLocal !== undefined && ours === undefined,
  checkFlux: ({ cluster }) => {
    const root = cluster.producers.find((p) => p.name === 'cluster');
    expect(root?.error).toBe("path 'tests/testdata/cluster2/flux' not found");
    expect(cluster.objects).toEqual([]);
  },
};

export const DIVERGENCES: Divergence[] = [secretSubstitution, gitRepositoryIgnore];
