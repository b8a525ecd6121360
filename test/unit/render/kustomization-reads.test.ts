/**
 * The files one Flux Kustomization's build reads, as kustomize reads them: its kustomization
 * (or the files Flux's generator lists), what references name through bases and components;
 * never a file its folder holds that no reference names.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FluxKustomization } from '../../../src/render/flux/index.js';
import { kustomizationReads } from '../../../src/render/kustomize/index.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string | { symlink: string }>): string {
  const root = mkdtempSync(join(tmpdir(), 'fluxlens-reads-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    if (typeof content === 'string') writeFileSync(join(root, path), content);
    else symlinkSync(content.symlink, join(root, path));
  }
  return root;
}

function ks(path: string, spec: Record<string, unknown> = {}): FluxKustomization {
  return FluxKustomization.parse({
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: 'apps', namespace: 'flux-system' },
    spec: { path, sourceRef: { kind: 'GitRepository', name: 'flux-system' }, ...spec },
  });
}

const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe("a Flux Kustomization's build", () => {
  it('reads its kustomization, what it names through bases, and patch files, not the rest of its folder', async () => {
    const root = tree({
      'apps/web/kustomization.yaml':
        'resources: [deploy.yaml, ../../base, missing.yaml]\npatches:\n  - path: patch.yaml\n',
      'apps/web/deploy.yaml': cm('deploy'),
      'apps/web/patch.yaml': cm('deploy'),
      'apps/web/old.yaml': cm('old'),
      'base/kustomization.yaml': 'resources: [ns.yaml]\n',
      'base/ns.yaml': cm('ns'),
      'base/README.md': 'base\n',
    });
    expect(await kustomizationReads(root, 'apps/web', ks('./apps/web'))).toEqual([
      'apps/web/deploy.yaml',
      'apps/web/kustomization.yaml',
      'apps/web/patch.yaml',
      'base/kustomization.yaml',
      'base/ns.yaml',
    ]);
  });

  it("reads every manifest Flux's generator lists, the components of its spec, and no other file", async () => {
    const root = tree({
      'apps/a.yaml': cm('a'),
      'apps/nested/b.yml': cm('b'),
      'apps/notes.md': 'notes\n',
      'apps/sub/kustomization.yaml': 'resources: [c.yaml]\n',
      'apps/sub/c.yaml': cm('c'),
      'apps/sub/d.yaml': cm('d'),
      'components/extra/kustomization.yaml':
        'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [e.yaml]\n',
      'components/extra/e.yaml': cm('e'),
    });
    const reads = await kustomizationReads(
      root,
      'apps',
      ks('./apps', { components: ['../components/extra'] }),
    );
    expect(reads).toEqual([
      'apps/a.yaml',
      'apps/nested/b.yml',
      'apps/sub/c.yaml',
      'apps/sub/kustomization.yaml',
      'components/extra/e.yaml',
      'components/extra/kustomization.yaml',
    ]);
  });

  it('reads a linked file as its target, and nothing out of the root', async () => {
    const outside = tree({ 'secret.yaml': cm('secret') });
    const root = tree({
      'apps/kustomization.yaml': 'resources: [linked.yaml, outside.yaml]\n',
      'apps/linked.yaml': { symlink: '../shared/one.yaml' },
      'apps/outside.yaml': { symlink: join(outside, 'secret.yaml') },
      'shared/one.yaml': cm('one'),
    });
    expect(await kustomizationReads(root, 'apps', ks('./apps'))).toEqual([
      'apps/kustomization.yaml',
      'shared/one.yaml',
    ]);
  });

  it('reads nothing where a file does not parse: the build fails there', async () => {
    const root = tree({ 'apps/bad.yaml': 'a: [\n', 'apps/good.yaml': cm('good') });
    expect(await kustomizationReads(root, 'apps', ks('./apps'))).toEqual([]);
  });
});

describe("bootstrap's flux-system folder with placeholder files", () => {
  const flags = 'patches:\n  - patch: "[]"\n    target:\n      kind: Deployment\n';
  it('is read by nothing: its patches act on no object the build gives', async () => {
    const root = tree({
      'clusters/prod/apps.yaml': cm('apps'),
      'clusters/prod/flux-system/kustomization.yaml': `resources: [gotk-components.yaml, gotk-sync.yaml]\n${flags}`,
      'clusters/prod/flux-system/gotk-components.yaml': '# written by flux bootstrap\n',
      'clusters/prod/flux-system/gotk-sync.yaml': '# written by flux bootstrap\n',
    });
    expect(await kustomizationReads(root, 'clusters/prod', ks('./clusters/prod'))).toEqual([
      'clusters/prod/apps.yaml',
    ]);
  });

  it('is read when gotk-components.yaml holds the controllers', async () => {
    const root = tree({
      'clusters/prod/flux-system/kustomization.yaml': `resources: [gotk-components.yaml, gotk-sync.yaml]\n${flags}`,
      'clusters/prod/flux-system/gotk-components.yaml': cm('controller'),
      'clusters/prod/flux-system/gotk-sync.yaml': '# written by flux bootstrap\n',
    });
    expect(await kustomizationReads(root, 'clusters/prod', ks('./clusters/prod'))).toEqual([
      'clusters/prod/flux-system/gotk-components.yaml',
      'clusters/prod/flux-system/gotk-sync.yaml',
      'clusters/prod/flux-system/kustomization.yaml',
    ]);
  });
});
