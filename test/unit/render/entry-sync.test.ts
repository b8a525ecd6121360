/** When the render assumes the Kustomization `flux bootstrap` writes over the entry folder. */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/model/render.js';
import {
  type Discovery,
  assumesBootstrap,
  withEntrySync,
  withInstanceSyncs,
} from '../../../src/render/flux/index.js';

const URL = 'https://github.com/example/fleet';

function ks(name: string, path: string, sourceRef: Record<string, unknown>): Manifest {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: 'flux-system' },
    spec: { path, sourceRef },
  };
}

const own = { kind: 'GitRepository', name: 'flux-system' };
const tenant = { kind: 'GitRepository', name: 'tenant' };

function found(
  kustomizations: Array<[string, Manifest]>,
  extra: Partial<Discovery> = {},
): Discovery {
  return {
    entry: 'clusters/prod',
    kustomizations: kustomizations.map(([file, manifest]) => ({ manifest, file, line: 1 })),
    helmReleases: [],
    sources: [],
    configData: [],
    instances: [],
    ...extra,
  };
}

const gitRepository = (name: string, url: string) => ({
  manifest: {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'GitRepository',
    metadata: { name, namespace: 'flux-system' },
    spec: { url },
  },
  file: 'clusters/prod/sources.yaml',
  line: 1,
});

describe('the entry folder', () => {
  it.each<[string, Discovery, string | undefined, boolean]>([
    [
      'is applied by bootstrap when nothing applies its Kustomizations',
      found([['clusters/prod/apps.yaml', ks('apps', './apps', own)]]),
      URL,
      true,
    ],
    [
      'is left alone when gotk-sync.yaml applies it',
      found([
        ['clusters/prod/apps.yaml', ks('apps', './apps', own)],
        ['clusters/prod/flux-system/gotk-sync.yaml', ks('flux-system', './clusters/prod', own)],
      ]),
      URL,
      false,
    ],
    [
      'is left alone when a Kustomization of the repository applies a folder above it',
      found([['clusters/prod/root.yaml', ks('root', './clusters', own)]]),
      URL,
      false,
    ],
    [
      'is applied by bootstrap when only another repository names its path',
      found([['clusters/prod/tenant.yaml', ks('tenant', './', tenant)]], {
        sources: [gitRepository('tenant', 'https://github.com/example/tenant')],
      }),
      URL,
      true,
    ],
    [
      'is left alone when a GitRepository of this repository, by its URL, applies it',
      found([['clusters/prod/root.yaml', ks('root', './clusters/prod', tenant)]], {
        sources: [gitRepository('tenant', `${URL}.git`)],
      }),
      URL,
      false,
    ],
    [
      'is applied by bootstrap when the URL of the repository is unknown',
      found([['clusters/prod/root.yaml', ks('root', './clusters/prod', tenant)]], {
        sources: [gitRepository('tenant', `${URL}.git`)],
      }),
      undefined,
      true,
    ],
    [
      'is left alone at the repository root',
      { ...found([['apps.yaml', ks('apps', './apps', own)]]), entry: '.' },
      URL,
      false,
    ],
  ])('%s', (_name, discovery, repoUrl, assumed) => {
    const synced = withEntrySync(discovery, repoUrl);
    expect(assumesBootstrap(synced)).toBe(assumed);
    if (!assumed) return;
    expect(synced.kustomizations.at(-1)).toEqual({
      manifest: {
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
      file: '',
      line: 0,
    });
  });

  it("is left alone when a FluxInstance's sync applies it, whatever the sync's source", () => {
    const instance = {
      manifest: {
        apiVersion: 'fluxcd.controlplane.io/v1',
        kind: 'FluxInstance',
        metadata: { name: 'flux', namespace: 'flux-system' },
        spec: {
          sync: {
            kind: 'OCIRepository',
            url: 'oci://ghcr.io/example/fleet',
            path: 'clusters/prod',
          },
        },
      },
      file: 'clusters/prod/flux-system/flux-instance.yaml',
      line: 1,
    };
    const discovery = withInstanceSyncs(
      found([['clusters/prod/tenants.yaml', ks('tenants', './tenants', own)]], {
        instances: [instance],
      }),
    );
    expect(assumesBootstrap(withEntrySync(discovery, URL))).toBe(false);
  });
});
