/**
 * Gateway listeners that admit routes from more namespaces: a new listener open to all of
 * them (a public gateway's new SSH port is the case that matters), and allowedRoutes that
 * widen. Gateways shaped as home-ops repositories write them for envoy-gateway.
 */
import { describe, expect, it } from 'vitest';
import { findingsOf, fired, obj, type Scenario } from './scenario.js';

type Listener = Record<string, unknown>;

const http: Listener = {
  name: 'http',
  protocol: 'HTTP',
  port: 80,
  hostname: '*.example.com',
  allowedRoutes: { namespaces: { from: 'Same' } },
};
const https = (from?: string, selector?: object): Listener => ({
  name: 'https',
  protocol: 'HTTPS',
  port: 443,
  hostname: '*.example.com',
  ...(from ? { allowedRoutes: { namespaces: { from, ...(selector ? { selector } : {}) } } } : {}),
  tls: { certificateRefs: [{ kind: 'Secret', name: 'example-com-production-tls' }] },
});
const ssh = (from = 'All', port = 22): Listener => ({
  name: 'ssh',
  protocol: 'TCP',
  port,
  allowedRoutes: { namespaces: { from }, kinds: [{ kind: 'TCPRoute' }] },
});
const TENANTS = { matchLabels: { 'gateway-access': 'true' } };

function gateway(name: string, listeners: Listener[]) {
  return obj(
    'gateway.networking.k8s.io/v1',
    'Gateway',
    name,
    'network',
    {
      spec: {
        gatewayClassName: 'envoy',
        addresses: [{ type: 'IPAddress', value: '192.168.42.121' }],
        infrastructure: {
          annotations: { 'external-dns.alpha.kubernetes.io/hostname': `${name}.example.com` },
        },
        listeners,
      },
    },
    { annotations: { 'external-dns.alpha.kubernetes.io/target': `${name}.example.com` } },
  );
}

const external = (...listeners: Listener[]) => gateway('envoy-external', listeners);
const internal = (...listeners: Listener[]) => gateway('envoy-internal', listeners);

describe('gateway listeners', () => {
  it.each<[string, Scenario, string[]]>([
    [
      "flags a public gateway's new SSH listener open to all namespaces",
      { base: [external(http, https('All'))], head: [external(http, https('All'), ssh())] },
      ['gateway-listener-open'],
    ],
    [
      'flags a new internal gateway listener open to all namespaces',
      { base: [internal(http)], head: [internal(http, ssh())] },
      ['gateway-listener-open'],
    ],
    [
      'flags a new Gateway with a listener open to all namespaces',
      { base: [], head: [external(http, https('All'))] },
      ['gateway-listener-open'],
    ],
    [
      'flags a listener open to all namespaces that moves to another port',
      { base: [external(http, ssh('All', 2222))], head: [external(http, ssh('All', 22))] },
      ['gateway-listener-open'],
    ],
    [
      'flags allowedRoutes widened from Same to All',
      { base: [external(http, https('Same'))], head: [external(http, https('All'))] },
      ['gateway-routes-widened'],
    ],
    [
      'flags allowedRoutes widened from the default (Same) to a selector',
      { base: [external(http, https())], head: [external(http, https('Selector', TENANTS))] },
      ['gateway-routes-widened'],
    ],
    [
      'flags allowedRoutes widened from a selector to All',
      { base: [external(https('Selector', TENANTS))], head: [external(https('All'))] },
      ['gateway-routes-widened'],
    ],
    [
      'stays quiet when a listener open to all namespaces was already there',
      {
        base: [external(http, https('All'))],
        head: [external({ ...http, hostname: '*.example.org' }, https('All'))],
      },
      [],
    ],
    [
      'stays quiet for a renamed listener on the same port',
      { base: [external(https('All'))], head: [external({ ...https('All'), name: 'websecure' })] },
      [],
    ],
    [
      'stays quiet for a new listener that admits its own namespace only',
      { base: [external(http)], head: [external(http, ssh('Same'))] },
      [],
    ],
    [
      'stays quiet when allowedRoutes narrow',
      { base: [external(https('All'))], head: [external(https('Selector', TENANTS))] },
      [],
    ],
    ['stays quiet for a removed Gateway', { base: [external(https('All'))], head: [] }, []],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'exposure')).toEqual(expected);
  });

  it("says a public gateway's new listener takes traffic from the internet, and where", () => {
    const [finding] = findingsOf(
      { base: [external(http, https('All'))], head: [external(http, https('All'), ssh())] },
      'gateway-listener-open',
    );
    expect(finding).toMatchObject({
      level: 'caution',
      resource: { kind: 'Gateway', namespace: 'network', name: 'envoy-external' },
      file: 'apps/gateway-envoy-external.yaml',
    });
    expect(finding?.message).toBe(
      'Gateway network/envoy-external (public): listener ssh on port 22 (TCP) is new and admits routes from all namespaces: a route in any namespace can attach to it and take its traffic, and with it traffic from the internet.',
    );
  });

  it('names both sides of a widening on an internal gateway', () => {
    const [finding] = findingsOf(
      { base: [internal(https('Same'))], head: [internal(https('Selector', TENANTS))] },
      'gateway-routes-widened',
    );
    expect(finding?.message).toBe(
      "Gateway network/envoy-internal: listener https on port 443 (HTTPS, *.example.com) admits routes from namespaces matching a selector instead of the Gateway's own namespace: routes in more namespaces can attach to it and take its traffic.",
    );
  });
});
