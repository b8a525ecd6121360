/**
 * Builds the risk step's inputs by hand: rendered clusters at base and head, and a
 * ClusterDiff that pairs their objects the way the diff step does (by identity), so rule
 * tests state only the manifests and producers they are about.
 */
import type { ClusterDiff, FieldChange, ResourceChange } from '../../../src/model/change.js';
import {
  objectId,
  objectMeta,
  producerKey,
  type Manifest,
  type Producer,
  type ProducerRef,
  type RenderedCluster,
  type RenderedObject,
  type RenderError,
} from '../../../src/model/render.js';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import { DEFAULT_POLICY, type Policy } from '../../../src/policy/types.js';
import { RULES } from '../../../src/risk/registry.js';
import type { Finding } from '../../../src/model/finding.js';

export const APPS: ProducerRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
export const ROOT: ProducerRef = {
  kind: 'Kustomization',
  namespace: 'flux-system',
  name: 'flux-system',
};
export const PODINFO: ProducerRef = { kind: 'HelmRelease', namespace: 'podinfo', name: 'podinfo' };

export function producer(ref: ProducerRef, over: Partial<Producer> = {}): Producer {
  return {
    ...ref,
    path: `./${ref.name}`,
    source: 'GitRepository/flux-system/flux-system',
    suspend: false,
    prune: true,
    dependsOn: [],
    definedIn: { file: `clusters/home/${ref.name}.yaml`, line: 1 },
    ...over,
  };
}

export const DEFAULT_PRODUCERS: Producer[] = [
  producer(ROOT, { path: './clusters/home' }),
  producer(APPS, { definedIn: { parent: ROOT } }),
  producer(PODINFO, { definedIn: { parent: APPS } }),
];

export interface Placed {
  manifest: Manifest;
  producer?: ProducerRef;
  file?: string | undefined;
  /** The line of the object's document in its file; none unless given. */
  line?: number;
}

/** A manifest rendered by APPS from a file named after it, unless `placed` says otherwise. */
export function place(manifest: Manifest, placed: Omit<Placed, 'manifest'> = {}): RenderedObject {
  const meta = objectMeta(manifest);
  const file = 'file' in placed ? placed.file : `apps/${meta.kind.toLowerCase()}-${meta.name}.yaml`;
  const object: RenderedObject = { producer: placed.producer ?? APPS, manifest };
  if (file !== undefined) object.file = file;
  if (file !== undefined && placed.line !== undefined) object.line = placed.line;
  return object;
}

type Side = Array<Manifest | RenderedObject>;

function toObject(item: Manifest | RenderedObject): RenderedObject {
  return 'manifest' in item && 'producer' in item
    ? (item as RenderedObject)
    : place(item as Manifest);
}

export function cluster(
  objects: Side,
  producers: Producer[] = DEFAULT_PRODUCERS,
  errors: RenderError[] = [],
): RenderedCluster {
  return { objects: objects.map(toObject), producers, errors, tools: {} };
}

/** Paths that differ, dot-joined with list indexes: enough for rules, which read manifests. */
function fields(a: unknown, b: unknown, path = ''): FieldChange[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (a === undefined) return [{ path, change: 'added' }];
  if (b === undefined) return [{ path, change: 'removed' }];
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => fields(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return [{ path, change: 'changed' }];
}

function change(
  name: string,
  status: ResourceChange['status'],
  base: RenderedObject | undefined,
  head: RenderedObject | undefined,
): ResourceChange {
  const object = (head ?? base)!;
  const meta = objectMeta(object.manifest);
  const out: ResourceChange = {
    id: objectId(object.manifest),
    status,
    contentChanged:
      status !== 'moved' || JSON.stringify(base?.manifest) !== JSON.stringify(head?.manifest),
    cluster: name,
    apiVersion: meta.apiVersion,
    kind: meta.kind,
    name: meta.name,
    producer: object.producer,
    fields: fields(base?.manifest, head?.manifest),
    diff: '',
  };
  if (meta.namespace) out.namespace = meta.namespace;
  if (object.file) out.file = object.file;
  if (object.file && object.line !== undefined) out.line = object.line;
  if (status === 'moved' && base) out.previousProducer = base.producer;
  // The real diff redacts these; rules must not need them.
  if (base) out.old = { redactedByTest: true };
  if (head) out.new = { redactedByTest: true };
  return out;
}

/** Pairs objects by identity, as the diff step does. */
export function pairDiff(
  name: string,
  base: RenderedCluster,
  head: RenderedCluster,
  errorsIntroduced: RenderError[] = [],
): ClusterDiff {
  const byId = (c: RenderedCluster) => new Map(c.objects.map((o) => [objectId(o.manifest), o]));
  const before = byId(base);
  const after = byId(head);
  const changes: ResourceChange[] = [];
  for (const [id, b] of before) {
    const h = after.get(id);
    if (!h) changes.push(change(name, 'removed', b, undefined));
    else if (producerKey(b.producer) !== producerKey(h.producer))
      changes.push(change(name, 'moved', b, h));
    else if (JSON.stringify(b.manifest) !== JSON.stringify(h.manifest)) {
      changes.push(change(name, 'changed', b, h));
    }
  }
  for (const [id, h] of after)
    if (!before.has(id)) changes.push(change(name, 'added', undefined, h));
  const producers = [...new Set(changes.map((c) => producerKey(c.producer)))].sort();
  return {
    cluster: name,
    changes,
    summary: {
      added: changes.filter((c) => c.status === 'added').length,
      removed: changes.filter((c) => c.status === 'removed').length,
      changed: changes.filter((c) => c.status === 'changed').length,
      moved: changes.filter((c) => c.status === 'moved').length,
      producers,
      namespaces: [],
      crds: [],
      images: [],
      errorsIntroduced,
      errorsFixed: [],
    },
  };
}

export interface Scenario {
  base: Side;
  head: Side;
  baseProducers?: Producer[];
  headProducers?: Producer[];
  errorsIntroduced?: RenderError[];
  policy?: Partial<Policy>;
}

export function evaluate(s: Scenario): Finding[] {
  const base = cluster(s.base, s.baseProducers);
  const head = cluster(s.head, s.headProducers);
  return evaluateRisk({
    clusters: [
      { name: 'home', diff: pairDiff('home', base, head, s.errorsIntroduced), base, head },
    ],
    policy: { ...DEFAULT_POLICY, ...s.policy },
  });
}

/** The rule ids of a family that fire, sorted: what a table row expects. */
export function fired(s: Scenario, family: string): string[] {
  const ids = new Set(RULES.filter((r) => r.family === family).map((r) => r.id));
  return evaluate(s)
    .filter((f) => ids.has(f.rule))
    .map((f) => f.rule)
    .sort();
}

/** The findings of one rule. */
export function findingsOf(s: Scenario, rule: string): Finding[] {
  return evaluate(s).filter((f) => f.rule === rule);
}

// Manifest builders: the smallest objects the rules read.

export function obj(
  apiVersion: string,
  kind: string,
  name: string,
  namespace: string | undefined,
  body: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
): Manifest {
  return {
    apiVersion,
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}), ...metadata },
    ...body,
  };
}

export function container(name: string, extra: Record<string, unknown> = {}) {
  return { name, image: `ghcr.io/example/${name}:1.0.0`, ...extra };
}

export function podTemplate(
  spec: Record<string, unknown>,
  labels: Record<string, string> = { app: 'web' },
) {
  return { metadata: { labels }, spec: { containers: [container('app')], ...spec } };
}

export function deployment(
  name: string,
  spec: Record<string, unknown> = {},
  pod: Record<string, unknown> = {},
): Manifest {
  return obj('apps/v1', 'Deployment', name, 'web', {
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: podTemplate(pod, { app: name }),
      ...spec,
    },
  });
}

export function statefulSet(name: string, spec: Record<string, unknown> = {}): Manifest {
  return obj('apps/v1', 'StatefulSet', name, 'data', {
    spec: {
      serviceName: name,
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: podTemplate({}, { app: name }),
      volumeClaimTemplates: [
        { metadata: { name: 'data' }, spec: { resources: { requests: { storage: '10Gi' } } } },
      ],
      ...spec,
    },
  });
}

export function pvc(name: string, storage = '10Gi', spec: Record<string, unknown> = {}): Manifest {
  return obj('v1', 'PersistentVolumeClaim', name, 'data', {
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...spec },
  });
}

export function namespace(name: string, labels: Record<string, string> = {}): Manifest {
  return obj('v1', 'Namespace', name, undefined, {}, { labels });
}

export function service(name: string, spec: Record<string, unknown> = {}): Manifest {
  return obj('v1', 'Service', name, 'web', { spec: { ports: [{ port: 80 }], ...spec } });
}

export function kustomization(ref: ProducerRef, spec: Record<string, unknown> = {}): Manifest {
  return obj('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', ref.name, ref.namespace, {
    spec: {
      interval: '10m',
      path: `./${ref.name}`,
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      ...spec,
    },
  });
}

export function helmRelease(ref: ProducerRef, spec: Record<string, unknown> = {}): Manifest {
  return obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', ref.name, ref.namespace, {
    spec: {
      interval: '10m',
      chart: {
        spec: {
          chart: 'podinfo',
          version: '6.5.0',
          sourceRef: { kind: 'HelmRepository', name: 'podinfo' },
        },
      },
      ...spec,
    },
  });
}
