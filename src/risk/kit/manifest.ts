/** Tolerant reads of raw manifests: rendered objects are untyped, and rules must not throw on odd input. */
import { apiGroup, isRecord, objectMeta, type Manifest } from '../../model/index.js';

export type Obj = Record<string, unknown>;

/** The value at a path of object keys, or undefined when any step is missing. */
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

export function objAt(value: unknown, ...path: string[]): Obj | undefined {
  const found = at(value, ...path);
  return isRecord(found) ? found : undefined;
}

export function listAt(value: unknown, ...path: string[]): unknown[] {
  const found = at(value, ...path);
  return Array.isArray(found) ? found : [];
}

export function strAt(value: unknown, ...path: string[]): string | undefined {
  const found = at(value, ...path);
  return typeof found === 'string' ? found : undefined;
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Structural equality that ignores key order; absent and undefined are the same. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqual(item, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (!deepEqual(a[key], b[key])) return false;
  return true;
}

/**
 * Kinds the rules know, by API group: a CRD may reuse a built-in kind's name, so rules
 * match on both.
 */
export const KIND_GROUPS = {
  Namespace: '',
  PersistentVolume: '',
  PersistentVolumeClaim: '',
  Pod: '',
  Secret: '',
  Service: '',
  CustomResourceDefinition: 'apiextensions.k8s.io',
  DaemonSet: 'apps',
  Deployment: 'apps',
  ReplicaSet: 'apps',
  StatefulSet: 'apps',
  CronJob: 'batch',
  Job: 'batch',
  Ingress: 'networking.k8s.io',
  NetworkPolicy: 'networking.k8s.io',
  PodDisruptionBudget: 'policy',
  ClusterRole: 'rbac.authorization.k8s.io',
  ClusterRoleBinding: 'rbac.authorization.k8s.io',
  Role: 'rbac.authorization.k8s.io',
  RoleBinding: 'rbac.authorization.k8s.io',
  Gateway: 'gateway.networking.k8s.io',
  GRPCRoute: 'gateway.networking.k8s.io',
  HTTPRoute: 'gateway.networking.k8s.io',
  TCPRoute: 'gateway.networking.k8s.io',
  TLSRoute: 'gateway.networking.k8s.io',
  UDPRoute: 'gateway.networking.k8s.io',
  HelmRelease: 'helm.toolkit.fluxcd.io',
  Kustomization: 'kustomize.toolkit.fluxcd.io',
} as const;

export type KnownKind = keyof typeof KIND_GROUPS;

/** Whether something with an apiVersion and kind (a change or a manifest's meta) is `kind`. */
export function isKind(
  subject: { apiVersion: string; kind: string },
  ...kinds: readonly KnownKind[]
): boolean {
  const group = apiGroup(subject.apiVersion);
  return kinds.some((kind) => subject.kind === kind && KIND_GROUPS[kind] === group);
}

export function manifestIs(manifest: Manifest, ...kinds: readonly KnownKind[]): boolean {
  return isKind(objectMeta(manifest), ...kinds);
}
