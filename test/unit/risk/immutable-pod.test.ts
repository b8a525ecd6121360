/**
 * A bare Pod can be updated in a few places only (the API server's pod update
 * validation): container and init container images, activeDeadlineSeconds set or
 * lowered, tolerations added, scheduling gates removed. Anything else in its spec wedges
 * the apply.
 */
import { describe, expect, it } from 'vitest';
import { findingsOf, fired, obj, place, producer, type Scenario } from './scenario.js';

function pod(spec: Record<string, unknown> = {}, annotations: Record<string, string> = {}) {
  return obj(
    'v1',
    'Pod',
    'debug',
    'web',
    {
      spec: {
        containers: [{ name: 'shell', image: 'busybox:1.36', command: ['sleep', '3600'] }],
        ...spec,
      },
    },
    { annotations },
  );
}
const shell = (extra: Record<string, unknown>) => [
  { name: 'shell', image: 'busybox:1.36', command: ['sleep', '3600'], ...extra },
];
const toleration = (key: string) => ({ key, operator: 'Exists', effect: 'NoSchedule' });
const change = (from: Record<string, unknown>, to: Record<string, unknown>): Scenario => ({
  base: [pod(from)],
  head: [pod(to)],
});

describe('immutable fields of a bare Pod', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a changed container command',
      change({}, { containers: shell({ command: ['sleep', '60'] }) }),
      ['immutable-field-changed'],
    ],
    [
      'flags a new environment variable',
      change({}, { containers: shell({ env: [{ name: 'A', value: '1' }] }) }),
      ['immutable-field-changed'],
    ],
    [
      'flags a new node selector',
      change({}, { nodeSelector: { disk: 'ssd' } }),
      ['immutable-field-changed'],
    ],
    [
      'flags a removed toleration',
      change(
        { tolerations: [toleration('a'), toleration('b')] },
        { tolerations: [toleration('a')] },
      ),
      ['immutable-field-changed'],
    ],
    [
      'flags a raised activeDeadlineSeconds',
      change({ activeDeadlineSeconds: 60 }, { activeDeadlineSeconds: 120 }),
      ['immutable-field-changed'],
    ],
    [
      'stays quiet for a new image',
      change({}, { containers: shell({ image: 'busybox:1.37' }) }),
      [],
    ],
    [
      'stays quiet for an added toleration',
      change(
        { tolerations: [toleration('a')] },
        { tolerations: [toleration('a'), toleration('b')] },
      ),
      [],
    ],
    [
      'stays quiet for activeDeadlineSeconds set or lowered',
      change({ activeDeadlineSeconds: 120 }, { activeDeadlineSeconds: 60 }),
      [],
    ],
    [
      'stays quiet for a removed scheduling gate',
      change({ schedulingGates: [{ name: 'wait' }] }, {}),
      [],
    ],
    [
      'stays quiet when a default is written out',
      change({}, { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' }),
      [],
    ],
    [
      'stays quiet for a helm test Pod, which helm creates afresh',
      {
        base: [pod({}, { 'helm.sh/hook': 'test' })],
        head: [pod({ containers: shell({ command: ['true'] }) }, { 'helm.sh/hook': 'test' })],
      },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'immutable')).toEqual(expected);
  });

  it('names the fields that cannot change', () => {
    const [finding] = findingsOf(
      change({}, { containers: shell({ command: ['true'] }), nodeSelector: { disk: 'ssd' } }),
      'immutable-field-changed',
    );
    expect(finding?.message).toBe(
      'Pod web/debug changes spec.containers, spec.nodeSelector, which Kubernetes refuses to update: Kustomization flux-system/apps fails to apply until the object is deleted by hand.',
    );
  });

  it('names the ResourceSet that applies the object as what fails to apply', () => {
    const tenants = { kind: 'ResourceSet' as const, namespace: 'flux-system', name: 'tenants' };
    const placed = (spec: Record<string, unknown>) => place(pod(spec), { producer: tenants });
    const scenario: Scenario = {
      base: [placed({})],
      head: [placed({ containers: shell({ command: ['true'] }) })],
      baseProducers: [producer(tenants)],
      headProducers: [producer(tenants)],
    };
    const [finding] = findingsOf(scenario, 'immutable-field-changed');
    expect(finding?.message).toContain(
      'which Kubernetes refuses to update: ResourceSet flux-system/tenants fails to apply until the object is deleted by hand.',
    );
  });
});
