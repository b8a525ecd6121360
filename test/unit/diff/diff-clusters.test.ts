/**
 * How objects pair up across a PR and what counts as a change: identity without version
 * or producer, moves, apiVersion migrations, reorders, field paths.
 */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/model/render.js';
import {
  APPS,
  configMap,
  deployment,
  diff,
  helmRelease,
  kustomization,
  rendered,
} from './build-cluster.js';

const web = (image: string, extra: Parameters<typeof deployment>[2] = {}) =>
  deployment('web', [{ name: 'app', image }], extra);

describe('pairing objects across a PR', () => {
  it('reports nothing for an object that is the same on both sides', () => {
    const result = diff([rendered(web('nginx:1.25'))], [rendered(web('nginx:1.25'))]);
    expect(result.changes).toEqual([]);
  });

  it.each([
    ['added', [], [rendered(web('nginx:1.25'))]],
    ['removed', [rendered(web('nginx:1.25'))], []],
    ['changed', [rendered(web('nginx:1.25'))], [rendered(web('nginx:1.26'))]],
  ])('reports an object as %s', (status, base, head) => {
    const result = diff(base, head);
    expect(result.changes.map((c) => [c.id, c.status, c.contentChanged])).toEqual([
      ['apps/Deployment/apps/web', status, true],
    ]);
  });

  it.each([
    ['unchanged content', 'nginx:1.25', false],
    ['changed content', 'nginx:1.26', true],
  ])('reports an object whose producer changed as moved, with %s', (_, image, changed) => {
    const from = kustomization('apps');
    const to = helmRelease('web', 'apps');
    const result = diff([rendered(web('nginx:1.25'), from)], [rendered(web(image), to)]);
    expect(result.changes).toHaveLength(1);
    const [change] = result.changes;
    expect(change).toMatchObject({ status: 'moved', contentChanged: changed, producer: to });
    expect(change?.previousProducer).toEqual(from);
    expect(change?.diff === '').toBe(!changed);
    expect(result.summary.producers).toEqual([
      'HelmRelease/apps/web',
      'Kustomization/flux-system/apps',
    ]);
  });

  it('reports an apiVersion migration as a change of one object, not a removal and an addition', () => {
    const hpa = (apiVersion: string): Manifest => ({
      apiVersion,
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'apps' },
      spec: { maxReplicas: 3 },
    });
    const result = diff([rendered(hpa('autoscaling/v2beta2'))], [rendered(hpa('autoscaling/v2'))]);
    expect(result.changes).toHaveLength(1);
    expect(result.changes[0]).toMatchObject({
      id: 'autoscaling/HorizontalPodAutoscaler/apps/web',
      status: 'changed',
      apiVersion: 'autoscaling/v2',
      fields: [{ path: 'apiVersion', change: 'changed' }],
    });
  });

  it.each([
    ['a different API group', 'example.com/v1'],
    ['a different namespace', 'other'],
  ])('treats a same-named object in %s as another object', (_, variant) => {
    const base = configMap('settings', { a: '1' });
    const head: Manifest =
      variant === 'other'
        ? configMap('settings', { a: '1' }, 'other')
        : { ...configMap('settings', { a: '1' }), apiVersion: variant };
    const result = diff([rendered(base)], [rendered(head)]);
    expect(result.changes.map((c) => c.status).sort()).toEqual(['added', 'removed']);
  });

  it('shows a second producer taking up an object as its addition, not as a move', () => {
    const result = diff(
      [rendered(configMap('settings', { a: '1' }))],
      [
        rendered(configMap('settings', { a: 'first' }), kustomization('one')),
        rendered(configMap('settings', { a: '1' }), APPS),
      ],
    );
    expect(result.changes.map((c) => [c.status, c.producer.name])).toEqual([['added', 'one']]);
  });

  it('sorts changes by id, whatever order the renderer produced them in', () => {
    const head = [
      rendered(configMap('zeta', {})),
      rendered(web('nginx')),
      rendered(configMap('alpha', {})),
      rendered(configMap('beta', {}, 'a-first')),
    ];
    const ids = diff([], head).changes.map((c) => c.id);
    expect(ids).toEqual([
      '/ConfigMap/a-first/beta',
      '/ConfigMap/apps/alpha',
      '/ConfigMap/apps/zeta',
      'apps/Deployment/apps/web',
    ]);
    expect(JSON.stringify(diff([], [...head].reverse()))).toBe(JSON.stringify(diff([], head)));
  });

  it('carries the head source file, and the base one for a removal', () => {
    const added = diff([], [rendered(web('nginx'), APPS, 'apps/web.yaml')]).changes[0];
    const removed = diff([rendered(web('nginx'), APPS, 'old/web.yaml')], []).changes[0];
    expect([added?.file, removed?.file]).toEqual(['apps/web.yaml', 'old/web.yaml']);
  });

  it('carries the line with its file, from the head, and from the base for a removal', () => {
    const at = (image: string, file: string, line: number) => ({
      ...rendered(web(image), APPS, file),
      line,
    });
    const changed = diff([at('nginx:1', 'apps/web.yaml', 3)], [at('nginx:2', 'apps/web.yaml', 9)]);
    const removed = diff([at('nginx:1', 'old/web.yaml', 4)], []);
    expect(changed.changes[0]).toMatchObject({ file: 'apps/web.yaml', line: 9 });
    expect(removed.changes[0]).toMatchObject({ file: 'old/web.yaml', line: 4 });
  });

  it('sees no change when only the line of an object moves', () => {
    const at = (line: number) => ({ ...rendered(web('nginx'), APPS, 'apps/web.yaml'), line });
    expect(diff([at(3)], [at(9)]).changes).toEqual([]);
  });
});

describe('field-level changes', () => {
  const twoContainers = (
    app: string,
    env: Array<[string, string]>,
    order: 'app-first' | 'side-first',
  ) => {
    const containers = [
      { name: 'app', image: app, env: env.map(([name, value]) => ({ name, value })) },
      { name: 'side', image: 'busybox:1' },
    ];
    return deployment('web', order === 'app-first' ? containers : containers.reverse());
  };

  it.each([
    [
      'containers',
      twoContainers(
        'nginx:1',
        [
          ['A', '1'],
          ['B', '2'],
        ],
        'side-first',
      ),
    ],
    [
      'env vars',
      twoContainers(
        'nginx:1',
        [
          ['B', '2'],
          ['A', '1'],
        ],
        'app-first',
      ),
    ],
  ])('does not count a reorder of %s as a change', (_, head) => {
    const base = twoContainers(
      'nginx:1',
      [
        ['A', '1'],
        ['B', '2'],
      ],
      'app-first',
    );
    expect(diff([rendered(base)], [rendered(head)]).changes).toEqual([]);
  });

  it('reports one edited container among reordered ones as one path, and diffs it without the reorder', () => {
    const base = twoContainers('nginx:1', [['A', '1']], 'app-first');
    const head = twoContainers('nginx:2', [['A', '1']], 'side-first');
    const [change] = diff([rendered(base)], [rendered(head)]).changes;
    expect(change?.fields).toEqual([
      { path: 'spec.template.spec.containers[app].image', change: 'changed' },
    ]);
    const edits = change?.diff.split('\n').filter((l) => /^[-+][^-+]/.test(l));
    expect(edits).toEqual(['-          image: nginx:1', '+          image: nginx:2']);
  });

  it.each<[string, unknown, unknown, Array<[string, string]>]>([
    [
      'an added container is one path',
      [{ name: 'a', image: 'x' }],
      [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'y', env: [{ name: 'E' }] },
      ],
      [['spec.template.spec.containers[b]', 'added']],
    ],
    [
      'a removed env var is one path',
      [
        {
          name: 'a',
          image: 'x',
          env: [
            { name: 'E', value: '1' },
            { name: 'F', value: '2' },
          ],
        },
      ],
      [{ name: 'a', image: 'x', env: [{ name: 'E', value: '1' }] }],
      [['spec.template.spec.containers[a].env[F]', 'removed']],
    ],
    [
      'an added resources block is one path',
      [{ name: 'a', image: 'x' }],
      [{ name: 'a', image: 'x', resources: { limits: { cpu: '1', memory: '1Gi' } } }],
      [['spec.template.spec.containers[a].resources', 'added']],
    ],
    [
      'args are one list value',
      [{ name: 'a', image: 'x', args: ['--a', '--b'] }],
      [{ name: 'a', image: 'x', args: ['--z', '--a', '--b'] }],
      [['spec.template.spec.containers[a].args', 'changed']],
    ],
    [
      'unnamed ports pair by port number',
      [{ name: 'a', image: 'x', ports: [{ containerPort: 80 }, { containerPort: 443 }] }],
      [
        {
          name: 'a',
          image: 'x',
          ports: [{ containerPort: 443, protocol: 'TCP' }, { containerPort: 80 }],
        },
      ],
      [['spec.template.spec.containers[a].ports[containerPort=443].protocol', 'added']],
    ],
    [
      'volume mounts sharing a volume pair by mount path',
      [
        {
          name: 'a',
          image: 'x',
          volumeMounts: [
            { name: 'v', mountPath: '/a' },
            { name: 'v', mountPath: '/b', subPath: 'b' },
          ],
        },
      ],
      [
        {
          name: 'a',
          image: 'x',
          volumeMounts: [
            { name: 'v', mountPath: '/b', subPath: 'c' },
            { name: 'v', mountPath: '/a' },
          ],
        },
      ],
      [['spec.template.spec.containers[a].volumeMounts[mountPath=/b].subPath', 'changed']],
    ],
  ])('%s', (_, before, after, paths) => {
    const base = deployment('web', before as never);
    const head = deployment('web', after as never);
    const [change] = diff([rendered(base)], [rendered(head)]).changes;
    expect(change?.fields.map((f) => [f.path, f.change])).toEqual(paths);
  });

  it.each<[string, unknown[], unknown[], string[]]>([
    [
      'pairs items that all have a unique name by name',
      [
        { name: 'a', v: 1 },
        { name: 'b', v: 1 },
      ],
      [
        { name: 'b', v: 1 },
        { name: 'a', v: 2 },
      ],
      ['spec.rules[a].v'],
    ],
    [
      'pairs items by index when a name repeats',
      [
        { name: 'a', v: 1 },
        { name: 'a', v: 1 },
      ],
      [
        { name: 'a', v: 2 },
        { name: 'a', v: 1 },
      ],
      ['spec.rules[0].v'],
    ],
    [
      'pairs items without names by index',
      [{ host: 'a' }, { host: 'b' }],
      [{ host: 'b' }, { host: 'a' }],
      ['spec.rules[0].host', 'spec.rules[1].host'],
    ],
    [
      'quotes a name that reads like an index',
      [{ name: '0', v: 1 }],
      [{ name: '0', v: 2 }],
      ['spec.rules["0"].v'],
    ],
  ])('%s', (_, before, after, paths) => {
    const custom = (rules: unknown[]): Manifest => ({
      apiVersion: 'example.com/v1',
      kind: 'Routes',
      metadata: { name: 'r', namespace: 'apps' },
      spec: { rules },
    });
    const [change] = diff([rendered(custom(before))], [rendered(custom(after))]).changes;
    expect(change?.fields.map((f) => f.path)).toEqual(paths);
  });

  it('quotes keys that are not plain identifiers', () => {
    const before = configMap('c', { 'app.yaml': 'a' });
    const after = configMap('c', { 'app.yaml': 'b' });
    const [change] = diff([rendered(before)], [rendered(after)]).changes;
    expect(change?.fields).toEqual([{ path: 'data["app.yaml"]', change: 'changed' }]);
  });
});
