/**
 * Which YAML files of a tree a build may read as objects to apply, by what the tree's
 * kustomization files say of them: discovery takes definitions only from those.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { KustomizationReferences } from '../../../src/render/flux/kustomization-references.js';
import { makeRepo, type RepoFiles, type TestRepo } from '../../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

async function references(files: RepoFiles): Promise<KustomizationReferences> {
  const repo = makeRepo(files);
  repos.push(repo);
  return KustomizationReferences.read(repo.dir, Object.keys(files));
}

describe('a YAML file holds objects to apply', () => {
  it.each<[string, RepoFiles, string, boolean]>([
    ['in a folder without a kustomization file', {}, 'app/release.yaml', true],
    [
      'listed as a resource',
      { 'app/kustomization.yaml': 'resources: [release.yaml]' },
      'app/release.yaml',
      true,
    ],
    [
      'listed through ./ and ../',
      { 'app/kustomization.yaml': 'resources: [./x/../release.yaml]' },
      'app/release.yaml',
      true,
    ],
    [
      'listed by a kustomization elsewhere',
      {
        'kustomization.yaml': 'resources: [app/release.yaml]',
        'app/kustomization.yaml': 'resources: []',
      },
      'app/release.yaml',
      true,
    ],
    [
      'listed as a resource and as a patch',
      { 'app/kustomization.yaml': 'resources: [release.yaml]\npatches: [{path: release.yaml}]' },
      'app/release.yaml',
      true,
    ],
    [
      'not listed by its folder kustomization',
      { 'app/kustomization.yaml': 'resources: [other.yaml]' },
      'app/release.yaml',
      false,
    ],
    [
      'named in patches',
      { 'app/kustomization.yaml': 'patches:\n  - path: release.yaml' },
      'app/release.yaml',
      false,
    ],
    [
      'named in patchesStrategicMerge',
      { 'app/kustomization.yaml': 'patchesStrategicMerge: [release.yaml]' },
      'app/release.yaml',
      false,
    ],
    [
      'named in patchesJson6902',
      { 'app/kustomization.yaml': 'patchesJson6902: [{path: release.yaml}]' },
      'app/release.yaml',
      false,
    ],
    [
      'a patch of a kustomization in another folder',
      { 'overlay/kustomization.yaml': 'patches: [{path: ../app/release.yaml}]' },
      'app/release.yaml',
      false,
    ],
    [
      'named as a generator file',
      { 'app/kustomization.yaml': 'configMapGenerator: [{name: c, files: [k=release.yaml]}]' },
      'app/release.yaml',
      false,
    ],
    [
      'named in transformers',
      { 'app/kustomization.yaml': 'transformers: [release.yaml]' },
      'app/release.yaml',
      false,
    ],
    [
      'beside a Flux Kustomization saved as kustomization.yaml',
      {
        'app/kustomization.yaml':
          'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nspec: {}',
      },
      'app/release.yaml',
      true,
    ],
    [
      'beside a kustomization file that does not parse',
      { 'app/kustomization.yaml': 'resources: [\n' },
      'app/release.yaml',
      true,
    ],
    [
      'beside a kustomize Component that lists it',
      {
        'app/kustomization.yaml':
          'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [release.yaml]',
      },
      'app/release.yaml',
      true,
    ],
    [
      'beside a Kustomization file without extension',
      { 'app/Kustomization': 'resources: []' },
      'app/release.yaml',
      false,
    ],
  ])('%s', async (_case, files, file, holds) => {
    const refs = await references({ ...files, [file]: 'kind: ConfigMap\n' });
    expect(refs.holdsObjects(file)).toBe(holds);
  });
});

describe('the namespace kustomize gives a listed file', () => {
  it.each<[string, RepoFiles, string | undefined]>([
    [
      'none when no kustomization sets one',
      { 'app/kustomization.yaml': 'resources: [ks.yaml]' },
      undefined,
    ],
    [
      "its kustomization's namespace",
      { 'app/kustomization.yaml': 'namespace: media\nresources: [ks.yaml]' },
      'media',
    ],
    [
      'the outermost namespace when a folder is listed by another',
      {
        'kustomization.yaml': 'namespace: outer\nresources: [app]',
        'app/kustomization.yaml': 'namespace: inner\nresources: [ks.yaml]',
      },
      'outer',
    ],
    [
      'the inner one when the outer kustomization sets none',
      {
        'kustomization.yaml': 'resources: [app]',
        'app/kustomization.yaml': 'namespace: inner\nresources: [ks.yaml]',
      },
      'inner',
    ],
  ])('is %s', async (_case, files, namespace) => {
    expect((await references(files)).namespaceOf('app/ks.yaml')).toBe(namespace);
  });
});
