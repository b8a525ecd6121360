/** How both engines recognise a Flux producer and name it. */
import { describe, expect, it } from 'vitest';
import { isFluxKustomization, isHelmRelease, refOf } from '../../../src/render/flux/index.js';

describe('a Flux producer', () => {
  it.each([
    [
      'counts a Kustomization of the kustomize.toolkit.fluxcd.io group',
      'kustomize.toolkit.fluxcd.io/v1',
      'Kustomization',
      true,
    ],
    [
      'leaves out a kustomize.config.k8s.io Kustomization',
      'kustomize.config.k8s.io/v1beta1',
      'Kustomization',
      false,
    ],
    [
      'leaves out a core-group version that only spells the Flux group',
      'kustomize.toolkit.fluxcd.io',
      'Kustomization',
      false,
    ],
  ])('%s', (_case, apiVersion, kind, expected) => {
    expect(isFluxKustomization({ apiVersion, kind })).toBe(expected);
  });

  it.each([
    ['helm.toolkit.fluxcd.io/v2', true],
    ['helm.toolkit.fluxcd.io', false],
    ['example.com/v1', false],
  ])('reads apiVersion %s of a HelmRelease as Flux: %s', (apiVersion, expected) => {
    expect(isHelmRelease({ apiVersion, kind: 'HelmRelease' })).toBe(expected);
  });

  it('takes its kind from the manifest and its namespace from it or the fallback', () => {
    const release = {
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: { name: 'podinfo' },
    };
    const kustomization = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'apps', namespace: 'flux-system' },
    };
    expect(refOf(release, 'apps')).toEqual({
      kind: 'HelmRelease',
      namespace: 'apps',
      name: 'podinfo',
    });
    expect(refOf(kustomization, 'default')).toEqual({
      kind: 'Kustomization',
      namespace: 'flux-system',
      name: 'apps',
    });
  });
});
