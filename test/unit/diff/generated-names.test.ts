/**
 * kustomize's configMapGenerator and secretGenerator name what they make after a hash of
 * its contents: new data is a new name. The diff pairs the two names as one object that
 * changed, so the data change shows, not a removal and an addition.
 */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/model/render.js';
import { base64, configMap, diff, kustomization, rendered, secret } from './build-cluster.js';

const INFRA = kustomization('infra');

describe('generated ConfigMaps and Secrets', () => {
  it('pairs a ConfigMap whose hash suffix changes as one changed object, with its data diff', () => {
    const result = diff(
      [rendered(configMap('app-config-2c5mtg89bk', { color: 'red' }))],
      [rendered(configMap('app-config-h6d7fk4t2m', { color: 'blue' }))],
    );
    expect(result.changes).toHaveLength(1);
    const [change] = result.changes;
    expect(change).toMatchObject({
      status: 'changed',
      id: '/ConfigMap/apps/app-config-h6d7fk4t2m',
      name: 'app-config-h6d7fk4t2m',
    });
    expect(change?.fields).toEqual([
      { path: 'data.color', change: 'changed' },
      { path: 'metadata.name', change: 'changed' },
    ]);
    expect(change?.diff).toContain('-  color: red\n+  color: blue');
    expect(result.summary).toMatchObject({ added: 0, removed: 0, changed: 1 });
  });

  it('pairs a generated Secret across its suffix and still hides both values', () => {
    const result = diff(
      [rendered(secret('db-creds-9b8kf2gt6m', { data: { password: base64('old-password-1') } }))],
      [rendered(secret('db-creds-t4hd6c5k2b', { data: { password: base64('new-password-2') } }))],
    );
    expect(result.changes.map((c) => c.status)).toEqual(['changed']);
    const text = JSON.stringify(result);
    expect(text).not.toContain(base64('old-password-1'));
    expect(text).not.toContain(base64('new-password-2'));
  });

  it('records a move to another producer together with the new suffix', () => {
    const result = diff(
      [rendered(configMap('app-config-2c5mtg89bk', { color: 'red' }))],
      [rendered(configMap('app-config-h6d7fk4t2m', { color: 'blue' }), INFRA)],
    );
    expect(result.changes.map((c) => [c.status, c.previousProducer?.name])).toEqual([
      ['moved', 'apps'],
    ]);
  });

  it.each<[string, Manifest[], Manifest[]]>([
    [
      'names whose last part is not a kustomize hash (letters outside its alphabet)',
      [configMap('app-config-abcdefghij', { a: '1' })],
      [configMap('app-config-2c5mtg89bk', { a: '2' })],
    ],
    [
      'two candidates on one side, where it is not clear which became which',
      [
        configMap('app-config-2c5mtg89bk', { a: '1' }),
        configMap('app-config-4d6fgh7k8m', { a: '2' }),
      ],
      [configMap('app-config-h6d7fk4t2m', { a: '3' })],
    ],
    [
      'another namespace',
      [configMap('app-config-2c5mtg89bk', { a: '1' })],
      [configMap('app-config-h6d7fk4t2m', { a: '2' }, 'web')],
    ],
    [
      'another kind of the same name',
      [configMap('app-config-2c5mtg89bk', { a: '1' })],
      [secret('app-config-h6d7fk4t2m', { stringData: { a: '2' } })],
    ],
  ])('keeps a removal and an addition for %s', (_, base, head) => {
    const result = diff(
      base.map((m) => rendered(m)),
      head.map((m) => rendered(m)),
    );
    expect(result.summary.added).toBeGreaterThan(0);
    expect(result.summary.removed).toBeGreaterThan(0);
  });
});
