/** How a review accounts for each changed file from what its renders read. */
import { describe, expect, it } from 'vitest';
import { accountFiles } from '../../../src/analysis/account-files.js';
import type { Producer, RenderedCluster } from '../../../src/model/render.js';

const producer = (path: string, over: Partial<Producer> = {}): Producer => ({
  kind: 'Kustomization',
  namespace: 'flux-system',
  name: path.replace(/\W/g, '-'),
  path,
  source: 'GitRepository/flux-system/flux-system',
  suspend: false,
  prune: true,
  dependsOn: [],
  definedIn: { file: 'clusters/prod/apps.yaml', line: 1 },
  ...over,
});

const cluster = (over: Partial<RenderedCluster>): RenderedCluster => ({
  producers: [producer('apps')],
  objects: [],
  errors: [],
  tools: {},
  ...over,
});

const RULES = [
  { dir: '', pattern: '.git/', from: "source-controller's version control exclusions" },
  { dir: 'docs', pattern: '*.md', from: 'docs/.sourceignore' },
  { dir: 'docs', pattern: '!keep.md', from: 'docs/.sourceignore' },
];

describe('the changed files of a review', () => {
  it('are read, left out by the rule that decides, or read by nothing, once each and sorted', () => {
    const base = cluster({ reads: { files: ['apps/a.yaml'], ignore: [RULES] } });
    const head = cluster({ reads: { files: ['apps/b.yaml'], ignore: [RULES] } });
    const changed = ['docs/keep.md', 'apps/b.yaml', 'docs/guide.md', 'apps/a.yaml', 'apps/a.yaml'];
    expect(accountFiles(changed, [base, head])).toEqual({
      read: ['apps/a.yaml', 'apps/b.yaml'],
      excluded: [{ path: 'docs/guide.md', pattern: '*.md', from: 'docs/.sourceignore' }],
      unread: ['docs/keep.md'],
    });
  });

  it('name the producers that did not render beside files read by nothing: one of them may read them', () => {
    const skipped = producer('tenants', {
      skipped:
        'source OCIRepository/flux-system/flux-system is not this repository and is not mapped',
    });
    const failed = producer('infra', { error: 'kustomize build failed' });
    const fromRegistry = producer('podinfo', {
      kind: 'HelmRelease',
      source: 'OCIRepository/podinfo/podinfo',
      error: 'chart unavailable',
    });
    const base = cluster({
      producers: [producer('apps'), skipped, failed, fromRegistry],
      reads: { files: [], ignore: [] },
    });
    const head = cluster({
      producers: [producer('apps'), skipped],
      reads: { files: [], ignore: [] },
    });
    const files = accountFiles(['tenants/apps.yaml'], [base, head]);
    expect(files.unread).toEqual(['tenants/apps.yaml']);
    expect(files.unrendered).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' },
        reason: 'kustomize build failed',
      },
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'tenants' },
        reason:
          'source OCIRepository/flux-system/flux-system is not this repository and is not mapped',
      },
    ]);
    const read = cluster({ producers: [skipped], reads: { files: ['apps/a.yaml'], ignore: [] } });
    expect(accountFiles(['apps/a.yaml'], [read]).unrendered).toBeUndefined();
  });

  it('are left out only when every artifact of the repository leaves them out', () => {
    const reads = { files: [], ignore: [RULES, RULES.slice(0, 1)] };
    expect(accountFiles(['docs/guide.md'], [cluster({ reads })]).unread).toEqual(['docs/guide.md']);
  });

  it('count as read under the folder of a Kustomization that rendered, where the engine cannot say what it read', () => {
    const flux = cluster({
      producers: [producer('apps'), producer('infra', { error: 'kustomize build failed' })],
    });
    const files = accountFiles(['apps/web/deploy.yaml', 'infra/x.yaml', 'base/y.yaml'], [flux]);
    expect(files).toMatchObject({
      read: ['apps/web/deploy.yaml'],
      unread: ['base/y.yaml', 'infra/x.yaml'],
    });
    expect(files.approximated).toContain('flux-local');
  });

  it('are read by nothing on a side where the cluster does not exist', () => {
    const empty = cluster({ producers: [] });
    expect(accountFiles(['clusters/new/apps.yaml'], [empty])).toEqual({
      read: [],
      excluded: [],
      unread: ['clusters/new/apps.yaml'],
    });
  });
});
