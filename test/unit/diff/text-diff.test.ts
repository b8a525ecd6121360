/** The per-object unified diff reviewers read: sorted-key YAML, 3 lines of context, named headers. */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/model/render.js';
import { configMap, diff, helmRelease, rendered } from './build-cluster.js';

const twentyKeys = (changed: string): Manifest => {
  const data: Record<string, string> = {};
  for (let i = 1; i <= 20; i++) data[`k${String(i).padStart(2, '0')}`] = `v${i}`;
  data['k10'] = changed;
  return configMap('settings', data);
};

describe('the text diff of an object', () => {
  it('shows a change with 3 lines of context on each side under a/ and b/ headers', () => {
    const [change] = diff([rendered(twentyKeys('old'))], [rendered(twentyKeys('new'))]).changes;
    expect(change?.diff).toBe(
      [
        '--- a/ConfigMap/apps/settings',
        '+++ b/ConfigMap/apps/settings',
        '@@ -9,7 +9,7 @@',
        '   k07: v7',
        '   k08: v8',
        '   k09: v9',
        '-  k10: old',
        '+  k10: new',
        '   k11: v11',
        '   k12: v12',
        '   k13: v13',
        '',
      ].join('\n'),
    );
  });

  it('prints keys sorted, whatever order the manifest holds them in', () => {
    const head: Manifest = {
      metadata: { namespace: 'apps', name: 'c' },
      kind: 'ConfigMap',
      apiVersion: 'v1',
    };
    const [change] = diff([], [rendered(head)]).changes;
    expect(change?.diff.split('\n').slice(3, 8)).toEqual([
      '+apiVersion: v1',
      '+kind: ConfigMap',
      '+metadata:',
      '+  name: c',
      '+  namespace: apps',
    ]);
  });

  it.each<[string, Manifest[], Manifest[], string]>([
    ['an added object', [], [configMap('c', { a: '1' })], '+kind: ConfigMap'],
    ['a removed object', [configMap('c', { a: '1' })], [], '-kind: ConfigMap'],
  ])('shows every line of %s', (_, base, head, line) => {
    const [change] = diff(
      base.map((m) => rendered(m)),
      head.map((m) => rendered(m)),
    ).changes;
    expect(change?.diff.split('\n').slice(0, 2)).toEqual([
      '--- a/ConfigMap/apps/c',
      '+++ b/ConfigMap/apps/c',
    ]);
    expect(change?.diff).toContain(`\n${line}\n`);
  });

  it('names a cluster-scoped object by kind and name', () => {
    const role = (verbs: string[]): Manifest => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'admin' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs }],
    });
    const [change] = diff([rendered(role(['get']))], [rendered(role(['get', 'delete']))]).changes;
    expect(change?.diff.split('\n').slice(0, 2)).toEqual([
      '--- a/ClusterRole/admin',
      '+++ b/ClusterRole/admin',
    ]);
  });

  it('is empty for an object that only moved to another producer', () => {
    const [change] = diff(
      [rendered(configMap('c', { a: '1' }))],
      [rendered(configMap('c', { a: '1' }), helmRelease('c', 'apps'))],
    ).changes;
    expect(change).toMatchObject({ status: 'moved', contentChanged: false, diff: '', fields: [] });
  });
});
