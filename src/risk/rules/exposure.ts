/**
 * Exposure: traffic from outside the cluster. Services that open node ports or load
 * balancers, and routes or ingresses moved onto a public gateway or class.
 */
import { isRecord, objectMeta, type Manifest } from '../../model/index.js';
import {
  type Draft,
  type Fact,
  type RiskContext,
  type RuleFamily,
  changeSubject,
  describe,
  introducedBy,
  isKind,
  listAt,
  listSome,
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
  ],
  check,
};
