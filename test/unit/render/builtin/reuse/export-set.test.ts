/**
 * What the builtin engine writes out of a revision before rendering: only what builds can
 * read (the entry, the folders Flux Kustomizations and charts name, what kustomization
 * files reference, every .sourceignore), or everything when only rendering could tell.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TreeFile } from '../../../../../src/git/index.js';
import { exportSet } from '../../../../../src/render/builtin/reuse/export-set.js';

const ks = (name: string, path: string, extra = '') => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: { name: ${name}, namespace: flux-system }
spec:
  path: ${path}
  sourceRef: { kind: GitRepository, name: flux-system }
${extra}`;

const release = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: { name: web, namespace: apps }
spec:
  chart:
    spec:
      chart: ./charts/web
      valuesFiles: [values/prod.yaml]
      sourceRef: { kind: GitRepository, name: flux-system, namespace: flux-system }
`;

/** A revision's files; `lacking` ones have no content. */
function revision(files: Record<string, string>, lacking: string[] = []) {
  const listing: TreeFile[] = Object.entries(files).map(([path, text]) => ({
    path,
    mode: '100644',
    oid: createHash('sha1').update(`${path}\0${text}`).digest('hex'),
    size: text.length,
    lacking: lacking.includes(path),
  }));
  const texts = new Map(listing.filter((f) => !f.lacking).map((f) => [f.oid, files[f.path]!]));
  const read = async (oids: readonly string[]) =>
    new Map(oids.flatMap((oid) => (texts.has(oid) ? [[oid, texts.get(oid)!] as const] : [])));
  return { listing, read };
}

async function written(files: Record<string, string>, lacking: string[] = []) {
  const { listing, read } = revision(files, lacking);
  const set = await exportSet(listing, 'clusters/prod', read);
  return 'all' in set ? set : set.files.map((f) => f.path).sort();
}

const FLEET = {
  'clusters/prod/flux-system.yaml': ks('flux-system', './clusters/prod'),
  'clusters/prod/apps.yaml': ks('apps', './apps/prod'),
  'clusters/prod/web.yaml': release,
  'apps/prod/kustomization.yaml': 'resources: [../base/a, cm.yaml]\n',
  'apps/prod/cm.yaml': 'kind: ConfigMap\n',
  'apps/base/a/kustomization.yaml':
    'resources: [deploy.yaml]\ncomponents: [../../../components/x]\n',
  'apps/base/a/deploy.yaml': 'kind: Deployment\n',
  'apps/base/a/nested/extra.yaml': 'kind: Service\n',
  'apps/base/b/deploy.yaml': 'kind: Deployment\n',
  'components/x/kustomization.yaml': 'kind: Component\n',
  'charts/web/Chart.yaml': 'name: web\n',
  'charts/web/templates/cm.yaml': 'kind: ConfigMap\n',
  'values/prod.yaml': 'replicas: 2\n',
  'values/dev.yaml': 'replicas: 1\n',
  '.sourceignore': 'docs/\n',
  'terraform/main.tf': 'resource "x" "y" {}\n',
  'docs/guide.md': '# guide\n',
};

describe('the files a review writes out of a revision', () => {
  it('are the entry, the folders its producers name, what their kustomizations reference, and ignore files', async () => {
    expect(await written(FLEET)).toEqual([
      '.sourceignore',
      'apps/base/a/deploy.yaml',
      'apps/base/a/kustomization.yaml',
      'apps/base/a/nested/extra.yaml',
      'apps/prod/cm.yaml',
      'apps/prod/kustomization.yaml',
      'charts/web/Chart.yaml',
      'charts/web/templates/cm.yaml',
      'clusters/prod/apps.yaml',
      'clusters/prod/flux-system.yaml',
      'clusters/prod/web.yaml',
      'components/x/kustomization.yaml',
      'values/prod.yaml',
    ]);
  });

  it('take the components a Flux Kustomization names, relative to its path, trailing slash or not', async () => {
    const files = {
      ...FLEET,
      'clusters/prod/apps.yaml': ks(
        'apps',
        './apps/prod',
        '  components:\n    - ../../components/volsync/\n    - ../../components/oidc\n',
      ),
      'components/volsync/kustomization.yaml': 'kind: Component\n',
      'components/oidc/kustomization.yaml': 'kind: Component\n',
    };
    expect(await written(files)).toEqual(
      expect.arrayContaining([
        'components/volsync/kustomization.yaml',
        'components/oidc/kustomization.yaml',
      ]),
    );
  });

  it('follow Kustomizations that a folder they reach defines', async () => {
    const files = {
      ...FLEET,
      'apps/prod/children.yaml': ks('child', './apps/base/b'),
      'apps/prod/kustomization.yaml': 'resources: [../base/a, cm.yaml, children.yaml]\n',
    };
    expect(await written(files)).toContain('apps/base/b/deploy.yaml');
  });

  it('name a file whose content the clone lacks where a build reads it, and leave out one no build reads', async () => {
    const files = await written(FLEET, ['docs/guide.md', 'apps/prod/cm.yaml']);
    expect(files).toContain('apps/prod/cm.yaml');
    expect(files).not.toContain('docs/guide.md');
  });

  it('take a strategic-merge patch that moves a Kustomization to its new folder', async () => {
    const patch = `patches:\n  - patch: |\n      apiVersion: kustomize.toolkit.fluxcd.io/v1\n      kind: Kustomization\n      metadata: { name: child }\n      spec: { path: ./apps/base/b }\n`;
    const files = { ...FLEET, 'apps/prod/kustomization.yaml': `resources: [cm.yaml]\n${patch}` };
    expect(await written(files)).toContain('apps/base/b/deploy.yaml');
  });

  it.each([
    ['a variable in a path', { 'clusters/prod/apps.yaml': ks('apps', './apps/${ENV}') }],
    ['a Kustomization of the whole repository', { 'clusters/prod/apps.yaml': ks('apps', './') }],
    [
      'a JSON patch of Kustomization paths',
      {
        'clusters/prod/apps.yaml': ks(
          'apps',
          './apps/prod',
          '  patches:\n    - target: { kind: Kustomization }\n      patch: |\n        - op: replace\n          path: /spec/path\n          value: ./elsewhere\n',
        ),
      },
    ],
  ])('are every file with %s', async (_what, change) => {
    expect(await written({ ...FLEET, ...change })).toEqual({ all: expect.any(String) });
  });
});
