/**
 * Exposure: traffic from outside the cluster. Services that open node ports or load
 * balancers, routes or ingresses moved onto a public gateway or class, and Gateway
 * listeners that let routes of more namespaces attach to them.
 */
import { isRecord, objectMeta, type Manifest, type ResourceChange } from '../../model/index.js';
import {
  type Draft,
  type Fact,
  type RiskContext,
  type RuleFamily,
  at,
  changeSubject,
  describe,
  introducedBy,
  isKind,
  listAt,
  listSome,
  manifestIs,
  rawPair,
  strAt,
} from '../kit/index.js';

/** Service types in order of exposure; each one also opens what the ones before it do. */
const SERVICE_EXPOSURE: Record<string, { rank: number; what: string }> = {
  NodePort: { rank: 1, what: 'opens a port on every node (NodePort)' },
  LoadBalancer: { rank: 2, what: 'asks for an external load balancer (LoadBalancer)' },
};

function serviceExposure(manifest: Manifest): Array<Fact & { what: string }> {
  if (!isKind(objectMeta(manifest), 'Service')) return [];
  const exposure = SERVICE_EXPOSURE[strAt(manifest, 'spec', 'type') ?? 'ClusterIP'];
  if (!exposure) return [];
  return Object.entries(SERVICE_EXPOSURE)
    .filter(([, e]) => e.rank <= exposure.rank)
    .map(([type]) => ({ key: type, what: exposure.what }));
}

function isPublic(name: string, policy: RiskContext['policy']): boolean {
  const lower = name.toLowerCase();
  return policy.publicGateways.some((s) => s !== '' && lower.includes(s.toLowerCase()));
}

const ROUTES = ['HTTPRoute', 'GRPCRoute', 'TCPRoute', 'TLSRoute', 'UDPRoute'] as const;

/** Public parents of a route (by gateway name or explicit namespace), or a public ingress class. */
function publicEntrances(policy: RiskContext['policy']) {
  return (manifest: Manifest): Fact[] => {
    const meta = objectMeta(manifest);
    if (isKind(meta, ...ROUTES)) {
      return listAt(manifest, 'spec', 'parentRefs')
        .filter(isRecord)
        .map((ref) => ({
          namespace: strAt(ref, 'namespace'),
          name: strAt(ref, 'name') ?? '',
        }))
        .filter(
          (ref) =>
            isPublic(ref.name, policy) || (!!ref.namespace && isPublic(ref.namespace, policy)),
        )
        .map((ref) => ({ key: `gateway ${ref.namespace ?? meta.namespace ?? ''}/${ref.name}` }));
    }
    if (isKind(meta, 'Ingress')) {
      const className =
        strAt(manifest, 'spec', 'ingressClassName') ??
        meta.annotations['kubernetes.io/ingress.class'];
      return className && isPublic(className, policy)
        ? [{ key: `ingress class ${className}` }]
        : [];
    }
    return [];
  };
}

/**
 * Which namespaces may attach routes to a listener (allowedRoutes.namespaces.from), widest
 * last; absent means Same, as the Gateway API defaults it.
 */
const ROUTE_NAMESPACES: Record<string, { rank: number; words: string }> = {
  Same: { rank: 0, words: "the Gateway's own namespace" },
  Selector: { rank: 1, words: 'namespaces matching a selector' },
  All: { rank: 2, words: 'all namespaces' },
};

interface Listener {
  name: string;
  /** `port 22 (TCP)`, `port 443 (HTTPS, *.example.com)`: where traffic comes in. */
  endpoint: string;
  from: string;
}

function gatewayListeners(manifest: Manifest | undefined): Listener[] {
  if (!manifest || !manifestIs(manifest, 'Gateway')) return [];
  return listAt(manifest, 'spec', 'listeners')
    .filter(isRecord)
    .map((listener, index) => {
      const port = at(listener, 'port');
      const hostname = strAt(listener, 'hostname');
      const protocol = strAt(listener, 'protocol') ?? '';
      return {
        name: strAt(listener, 'name') ?? `#${index}`,
        endpoint: `port ${String(port ?? '?')} (${protocol}${hostname ? `, ${hostname}` : ''})`,
        from: strAt(listener, 'allowedRoutes', 'namespaces', 'from') ?? 'Same',
      };
    });
}

const rankOf = (from: string): number => ROUTE_NAMESPACES[from]?.rank ?? 0;
const wordsOf = (from: string): string => ROUTE_NAMESPACES[from]?.words ?? from;

/**
 * Listeners that admit routes from more namespaces than before: a listener (new, or on
 * another port, protocol or hostname) open to all namespaces, or one whose allowedRoutes
 * widen (Same to Selector or All, Selector to All). A listener is matched across revisions
 * by name, else by where traffic comes in, so a rename alone opens nothing.
 */
function listenerDrafts(ctx: RiskContext, change: ResourceChange): Draft[] {
  const { base, head } = rawPair(ctx, change);
  const before = gatewayListeners(base);
  const subject = changeSubject(change);
  const publicGateway =
    isPublic(change.name, ctx.policy) ||
    (!!change.namespace && isPublic(change.namespace, ctx.policy));
  const reach = publicGateway ? ', and with it traffic from the internet' : '';
  const gateway = `${describe(subject.resource)}${publicGateway ? ' (public)' : ''}`;
  const drafts: Draft[] = [];
  for (const listener of gatewayListeners(head)) {
    const was =
      before.find((l) => l.name === listener.name) ??
      before.find((l) => l.endpoint === listener.endpoint);
    const label = `listener ${listener.name} on ${listener.endpoint}`;
    if (was && rankOf(listener.from) > rankOf(was.from)) {
      drafts.push({
        rule: 'gateway-routes-widened',
        subject,
        message: `${gateway}: ${label} admits routes from ${wordsOf(listener.from)} instead of ${wordsOf(was.from)}: routes in more namespaces can attach to it and take its traffic${reach}.`,
      });
    } else if (listener.from === 'All' && was?.endpoint !== listener.endpoint) {
      drafts.push({
        rule: 'gateway-listener-open',
        subject,
        message: `${gateway}: ${label} is ${was ? 'moved there' : 'new'} and admits routes from all namespaces: a route in any namespace can attach to it and take its traffic${reach}.`,
      });
    }
  }
  return drafts;
}

function check(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  const entrances = publicEntrances(ctx.policy);
  for (const change of ctx.diff.changes) {
    if (change.status === 'removed') continue;
    const subject = changeSubject(change);
    const what = describe(subject.resource);
    const opened = introducedBy(ctx, change, serviceExposure);
    // A Service that goes straight to LoadBalancer gains both facts; report the widest.
    const widest = opened.find((f) => f.key === 'LoadBalancer') ?? opened[0];
    if (widest) {
      drafts.push({
        rule: 'service-exposed',
        subject,
        message: `${what} ${widest.what}: it becomes reachable from outside the cluster.`,
      });
    }
    const publicNow = introducedBy(ctx, change, entrances);
    if (publicNow.length > 0) {
      drafts.push({
        rule: 'public-entrance',
        subject,
        message: `${what} attaches to public ${listSome(publicNow.map((f) => f.key))}: its backends take traffic from the internet.`,
      });
    }
    if (isKind(change, 'Gateway')) drafts.push(...listenerDrafts(ctx, change));
  }
  return drafts;
}

export const exposure: RuleFamily = {
  name: 'exposure',
  label: 'exposure',
  rules: [
    {
      id: 'service-exposed',
      level: 'caution',
      description: 'A Service that becomes NodePort or LoadBalancer.',
      headline: 'Exposes {resource} outside the cluster',
    },
    {
      id: 'public-entrance',
      level: 'caution',
      description:
        'A Gateway API route whose parentRefs, or an Ingress whose class, move to a public gateway (name contains a `publicGateways` substring).',
      headline: 'Puts {resource} on a public gateway',
    },
    {
      id: 'gateway-listener-open',
      level: 'caution',
      description:
        'A Gateway listener, new or moved to another port, protocol or hostname, that admits routes from all namespaces (`allowedRoutes.namespaces.from: All`).',
      headline: 'Opens a listener of {resource} to routes from all namespaces',
    },
    {
      id: 'gateway-routes-widened',
      level: 'caution',
      description:
        'A Gateway listener whose allowedRoutes admit more namespaces: Same to Selector or All, Selector to All.',
      headline: 'Lets routes of more namespaces attach to {resource}',
    },
  ],
  check,
};
