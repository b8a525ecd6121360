/** Hand-built rendered clusters for diff tests: objects with producers, no renderer. */
import type {
  Manifest,
  Producer,
  ProducerRef,
  RenderError,
  RenderedCluster,
  RenderedObject,
} from '../../../src/model/render.js';
import { diffClusters } from '../../../src/diff/index.js';
import type { ClusterDiff } from '../../../src/model/index.js';
import type { Policy } from '../../../src/policy/types.js';

export function kustomization(name: string, namespace = 'flux-system'): ProducerRef {
  return { kind: 'Kustomization', namespace, name };
}

export function helmRelease(name: string, namespace = 'flux-system'): ProducerRef {
  return { kind: 'HelmRelease', namespace, name };
}

export const APPS = kustomization('apps');

/** An object rendered by `producer` (the `apps` Kustomization unless told). */
export function rendered(
  manifest: Manifest,
  producer: ProducerRef = APPS,
  file?: string,
): RenderedObject {
  return file === undefined ? { producer, manifest } : { producer, manifest, file };
}

/** A producer as discovery finds it: at the root of the repository, nothing special. */
export function producer(ref: ProducerRef): Producer {
  return {
    ...ref,
    path: '.',
    source: 'GitRepository/flux-system/flux-system',
    suspend: false,
    prune: true,
    dependsOn: [],
    definedIn: { file: 'clusters/home/flux.yaml' },
  };
}

export function cluster(
  objects: RenderedObject[],
  errors: RenderError[] = [],
  producers: ProducerRef[] = [],
): RenderedCluster {
  return { producers: producers.map(producer), objects, errors, tools: {} };
}

export interface Container {
  name: string;
  image: string;
  [field: string]: unknown;
}

/** A Deployment `name` in `apps` running `containers`, with extra template labels. */
export function deployment(
  name: string,
  containers: Container[],
  extra: { namespace?: string; apiVersion?: string; labels?: Record<string, string> } = {},
): Manifest {
  return {
    apiVersion: extra.apiVersion ?? 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: extra.namespace ?? 'apps', labels: extra.labels ?? {} },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, ...extra.labels } },
        spec: { containers },
      },
    },
  };
}

export function configMap(
  name: string,
  data: Record<string, string>,
  namespace = 'apps',
): Manifest {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

export function secret(
  name: string,
  values: { data?: Record<string, string>; stringData?: Record<string, string> },
  namespace = 'apps',
): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'Opaque',
    ...values,
  };
}

export function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

const NO_EXTRAS: Policy['normalize'] = { labels: [], annotations: [], fields: [] };

export function diff(
  base: RenderedObject[],
  head: RenderedObject[],
  normalize: Policy['normalize'] = NO_EXTRAS,
): ClusterDiff {
  return diffClusters(cluster(base), cluster(head), { cluster: 'home', normalize });
}
