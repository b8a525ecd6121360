/**
 * How chart downloads may use the network: separate bounds on connecting and on the first
 * byte of the answer (a server that accepts and then says nothing fails in seconds, not at
 * the whole tool timeout), and whether repository-declared URLs may reach loopback,
 * private, link-local and other non-public addresses. The service denies those by default:
 * a PR must not make the worker probe the network it runs in.
 */
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { ChartNetwork } from '../../settings.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48], // local-use NAT64
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** True for an IP address that is not on the public internet. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms name an IPv4 host.
  const mapped = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return NON_PUBLIC.check(mapped, 'ipv4');
  return NON_PUBLIC.check(address, 'ipv6');
}

function refusal(host: string, what: string): ChartUnavailableError {
  return new ChartUnavailableError(
    `${what}: ${host} is not a public address, and repository-declared chart hosts may ` +
      'only be public here (FLUXLENS_CHART_PRIVATE_ADDRESSES=allow permits them)',
  );
}

/**
 * Refuses a host given as an IP literal (connections to one skip DNS, so the lookup
 * below never sees it) when the policy denies non-public addresses.
 */
export function checkHostLiteral(hostname: string, network: ChartNetwork, what: string): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (network.privateAddresses === 'deny' && isNonPublicAddress(host)) throw refusal(host, what);
}

/**
 * A DNS lookup for http(s).request that fails on a non-public answer when the policy
 * denies them: the address is checked as resolved for this connection, so a name cannot
 * pass a check and then resolve elsewhere.
 */
export function checkedLookup(network: ChartNetwork, what: string): LookupFunction | undefined {
  if (network.privateAddresses === 'allow') return undefined;
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const found = addresses.find((a) => isNonPublicAddress(a.address));
      if (found) return callback(refusal(hostname, what), '', 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`no address for ${hostname}`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
