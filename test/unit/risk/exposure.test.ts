import { describe, expect, it } from 'vitest';
import { findingsOf, fired, obj, service, type Scenario } from './scenario.js';

function route(kind: string, parents: Array<{ name: string; namespace?: string }>) {
  return obj('gateway.networking.k8s.io/v1', kind, 'web', 'web', {
    spec: { parentRefs: parents, rules: [] },
  });
}
function ingress(className?: string, annotations: Record<string, string> = {}) {
  return obj(
    'networking.k8s.io/v1',
    'Ingress',
    'web',
    'web',
    { spec: className ? { ingressClassName: className } : {} },
    { annotations },
  );
}

describe('exposure', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a Service that becomes a LoadBalancer',
      { base: [service('api')], head: [service('api', { type: 'LoadBalancer' })] },
      ['service-exposed'],
    ],
    [
      'flags a Service that becomes a NodePort',
      { base: [service('api')], head: [service('api', { type: 'NodePort' })] },
      ['service-exposed'],
    ],
    [
      'flags a new LoadBalancer Service',
      { base: [], head: [service('api', { type: 'LoadBalancer' })] },
      ['service-exposed'],
    ],
    [
      'flags a NodePort Service that becomes a LoadBalancer',
      {
        base: [service('api', { type: 'NodePort' })],
        head: [service('api', { type: 'LoadBalancer' })],
      },
      ['service-exposed'],
    ],
    [
      'stays quiet when a LoadBalancer was already one',
      {
        base: [service('api', { type: 'LoadBalancer' })],
        head: [service('api', { type: 'LoadBalancer', ports: [{ port: 443 }] })],
      },
      [],
    ],
    [
      'stays quiet when a LoadBalancer becomes a NodePort',
      {
        base: [service('api', { type: 'LoadBalancer' })],
        head: [service('api', { type: 'NodePort' })],
      },
      [],
    ],
    ['stays quiet for a new ClusterIP Service', { base: [], head: [service('api')] }, []],
    [
      'flags an HTTPRoute that moves to a public gateway',
      {
        base: [route('HTTPRoute', [{ name: 'internal' }])],
        head: [route('HTTPRoute', [{ name: 'external-gw' }])],
      },
      ['public-entrance'],
    ],
    [
      'flags a GRPCRoute on a gateway in a public namespace',
      { base: [], head: [route('GRPCRoute', [{ name: 'gw', namespace: 'public-ingress' }])] },
      ['public-entrance'],
    ],
    [
      'stays quiet when a route was already on the public gateway',
      {
        base: [route('HTTPRoute', [{ name: 'external' }])],
        head: [route('HTTPRoute', [{ name: 'external' }, { name: 'internal' }])],
      },
      [],
    ],
    [
      'stays quiet for a route on an internal gateway',
      { base: [], head: [route('HTTPRoute', [{ name: 'internal' }])] },
      [],
    ],
    [
      'flags an Ingress whose class moves to a public one',
      { base: [ingress('nginx-internal')], head: [ingress('nginx-external')] },
      ['public-entrance'],
    ],
    [
      'reads the old ingress class annotation too',
      {
        base: [ingress()],
        head: [ingress(undefined, { 'kubernetes.io/ingress.class': 'Public' })],
      },
      ['public-entrance'],
    ],
    [
      'stays quiet when the Ingress class was already public',
      {
        base: [ingress(undefined, { 'kubernetes.io/ingress.class': 'external' })],
        head: [ingress('external')],
      },
      [],
    ],
    [
      'uses the policy publicGateways instead of the defaults',
      {
        base: [],
        head: [route('HTTPRoute', [{ name: 'internet' }])],
        policy: { publicGateways: ['internet'] },
      },
      ['public-entrance'],
    ],
    [
      'stays quiet for the default public names when the policy names others',
      {
        base: [],
        head: [route('HTTPRoute', [{ name: 'external' }])],
        policy: { publicGateways: ['internet'] },
      },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'exposure')).toEqual(expected);
  });

  it('says what opens to the outside', () => {
    const [finding] = findingsOf(
      { base: [service('api')], head: [service('api', { type: 'LoadBalancer' })] },
      'service-exposed',
    );
    expect(finding?.level).toBe('caution');
    expect(finding?.message).toContain('external load balancer');
  });
});
