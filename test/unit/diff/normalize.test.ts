/**
 * Render noise that must not show as a change (chart labels, checksums, kustomize index
 * annotations, number spelling), the policy's extras, and what must stay a change.
 */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/model/render.js';
import { configMap, deployment, diff, rendered } from './build-cluster.js';

const web = (image: string, extra: Parameters<typeof deployment>[2] = {}) =>
  deployment('web', [{ name: 'app', image }], extra);

describe('normalising render noise', () => {
  const withMeta = (
    labels: Record<string, string>,
    annotations: Record<string, string>,
    templateAnnotations: Record<string, string> = {},
  ): Manifest => {
    const d = web('nginx:1', { labels });
    const meta = d['metadata'] as Record<string, unknown>;
    meta['annotations'] = annotations;
    const spec = d['spec'] as { template: { metadata: Record<string, unknown> } };
    spec.template.metadata['annotations'] = templateAnnotations;
    return d;
  };

  it.each<[string, Manifest, Manifest]>([
    [
      'a chart label bump',
      withMeta({ 'helm.sh/chart': 'web-1.0.0' }, {}),
      withMeta({ 'helm.sh/chart': 'web-1.1.0' }, {}),
    ],
    [
      'an app version label bump',
      withMeta({ 'app.kubernetes.io/version': '1' }, {}),
      withMeta({ 'app.kubernetes.io/version': '2' }, {}),
    ],
    [
      'a legacy chart label bump',
      withMeta({ chart: 'web-1.0.0' }, {}),
      withMeta({ chart: 'web-1.1.0' }, {}),
    ],
    [
      'a chart label that appears',
      withMeta({}, {}),
      withMeta({ 'helm.sh/chart': 'web-1.1.0' }, {}),
    ],
    [
      'a checksum annotation on the pod template',
      withMeta({}, {}, { 'checksum/config': 'aaa' }),
      withMeta({}, {}, { 'checksum/config': 'bbb' }),
    ],
    [
      'kustomize index annotations',
      withMeta({}, { 'config.kubernetes.io/index': '0' }),
      withMeta(
        {},
        { 'config.kubernetes.io/index': '3', 'internal.config.kubernetes.io/index': '3' },
      ),
    ],
  ])('ignores %s', (_, before, after) => {
    expect(diff([rendered(before)], [rendered(after)]).changes).toEqual([]);
  });

  it.each<[string, Manifest, Manifest]>([
    ['a real label', withMeta({ tier: 'a' }, {}), withMeta({ tier: 'b' }, {})],
    [
      'a checksum-like label (the glob is for annotations)',
      withMeta({ 'checksum/config': 'a' }, {}),
      withMeta({ 'checksum/config': 'b' }, {}),
    ],
  ])('still reports %s', (_, before, after) => {
    expect(diff([rendered(before)], [rendered(after)]).changes).toHaveLength(1);
  });

  it('never strips selectors: a version in a selector is a real change', () => {
    const before = web('nginx:1');
    const after = web('nginx:1');
    (after['spec'] as { selector: unknown }).selector = {
      matchLabels: { app: 'web', 'app.kubernetes.io/version': '2' },
    };
    const [change] = diff([rendered(before)], [rendered(after)]).changes;
    expect(change?.fields).toEqual([
      { path: 'spec.selector.matchLabels["app.kubernetes.io/version"]', change: 'added' },
    ]);
  });

  it.each<
    [string, { labels?: string[]; annotations?: string[]; fields?: string[] }, Manifest, Manifest]
  >([
    [
      'a policy label',
      { labels: ['team'] },
      withMeta({ team: 'a' }, {}),
      withMeta({ team: 'b' }, {}),
    ],
    [
      'a policy annotation glob',
      { annotations: ['deploy.example.com/*'] },
      withMeta({}, {}, { 'deploy.example.com/at': '1' }),
      withMeta({}, {}, { 'deploy.example.com/at': '2' }),
    ],
    [
      'a policy field path',
      { fields: ['spec.replicas'] },
      web('nginx:1'),
      { ...web('nginx:1'), spec: { ...(web('nginx:1')['spec'] as object), replicas: 5 } },
    ],
    [
      'a policy field path through named items',
      { fields: ['spec.template.spec.containers[*].image'] },
      web('nginx:1'),
      web('nginx:2'),
    ],
  ])('ignores %s on top of the defaults', (_, extra, before, after) => {
    const normalize = { labels: [], annotations: [], fields: [], ...extra };
    expect(diff([rendered(before)], [rendered(after)]).changes).toHaveLength(1);
    expect(diff([rendered(before)], [rendered(after)], normalize).changes).toEqual([]);
  });

  it('keeps normalised-away labels in the stored manifests, where risk and reports can read them', () => {
    const before = withMeta({ 'helm.sh/chart': 'web-1.0.0' }, {});
    const after = withMeta({ 'helm.sh/chart': 'web-1.1.0' }, {});
    (after['spec'] as Record<string, unknown>)['replicas'] = 2;
    const [change] = diff([rendered(before)], [rendered(after)]).changes;
    expect(change?.fields).toEqual([{ path: 'spec.replicas', change: 'changed' }]);
    expect(change?.diff).not.toContain('helm.sh/chart');
    expect(change?.new).toMatchObject({ metadata: { labels: { 'helm.sh/chart': 'web-1.1.0' } } });
  });

  it.each<[string, unknown, unknown, boolean]>([
    ['1 and 1.0 are one number', 1, 1.0, false],
    ['0 and -0 are one number', 0, -0, false],
    ['1e3 and 1000 are one number', 1e3, 1000, false],
    ['a big integer and a number of equal value are one number', 3n, 3, false],
    ['a quoted number is not a number', '3', 3, true],
    ['a different number is a change', 3, 4, true],
  ])('compares numbers by value: %s', (_, before, after, changed) => {
    const item = (value: unknown): Manifest => ({ ...configMap('c', {}), spec: { value } });
    const changes = diff([rendered(item(before))], [rendered(item(after))]).changes;
    expect(changes.length > 0).toBe(changed);
  });
});
