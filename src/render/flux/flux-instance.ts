/**
 * flux-operator's FluxInstance: with spec.sync, the operator itself creates a source and a
 * Kustomization that apply the cluster's folder, the part `flux bootstrap` writes to
 * gotk-sync.yaml. Nothing in the repository holds those two objects, so they are derived
 * here, the way the operator writes them.
 */
import { z } from 'zod';
import { apiGroup, asRecord, objectMeta, type Manifest } from '../../model/index.js';
import type { Discovery } from './objects.js';
import { KUSTOMIZE_GROUP, SOURCE_GROUP } from './objects.js';
import { normalizeFluxPath } from './sources.js';

const OPERATOR_GROUP = 'fluxcd.controlplane.io';

const Sync = z.looseObject({
  kind: z.enum(['GitRepository', 'OCIRepository', 'Bucket']),
  url: z.string().min(1),
  ref: z.string().optional(),
  path: z.string(),
  /** Names both objects; the operator uses the FluxInstance's namespace when it is absent. */
  name: z.string().min(1).optional(),
  interval: z.string().optional(),
  pullSecret: z.string().min(1).optional(),
  provider: z.string().min(1).optional(),
});

const FluxInstance = z.looseObject({
  metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().min(1).optional() }),
  spec: z.looseObject({ sync: Sync }),
});

export function isFluxInstance(manifest: Manifest): boolean {
  const apiVersion = manifest['apiVersion'];
  return (
    manifest['kind'] === 'FluxInstance' &&
    typeof apiVersion === 'string' &&
    apiGroup(apiVersion) === OPERATOR_GROUP
  );
}

/** What the operator creates for a FluxInstance's spec.sync; undefined without a usable one. */
export interface InstanceSync {
  source: Manifest;
  kustomization: Manifest;
  /** The Kustomization's path, normalised as Flux resolves it. */
  path: string;
}

/**
 * The source and Kustomization flux-operator creates for `manifest`, as its sync template
 * writes them: both in the instance's namespace, named spec.sync.name or else that
 * namespace (flux-system, as bootstrap names them), the Kustomization pruning, 10m apart.
 */
export function instanceSync(manifest: Manifest): InstanceSync | undefined {
  if (!isFluxInstance(manifest)) return undefined;
  const parsed = FluxInstance.safeParse(manifest);
  if (!parsed.success) return undefined;
  const sync = parsed.data.spec.sync;
  // The operator's own namespace, where instances live unless a file says otherwise.
  const namespace = parsed.data.metadata.namespace ?? 'flux-system';
  const name = sync.name ?? namespace;
  const metadata = { name, namespace };
  const sourceSpec: Record<string, unknown> = {
    interval: sync.interval ?? '1m',
    ...(sync.kind === 'Bucket' ? { endpoint: sync.url } : { url: sync.url }),
    ...(sync.pullSecret !== undefined ? { secretRef: { name: sync.pullSecret } } : {}),
    ...(sync.provider !== undefined ? { provider: sync.provider } : {}),
  };
  if (sync.ref !== undefined) {
    if (sync.kind === 'GitRepository') sourceSpec['ref'] = { name: sync.ref };
    else if (sync.kind === 'OCIRepository') sourceSpec['ref'] = { tag: sync.ref };
    else sourceSpec['bucketName'] = sync.ref;
  }
  return {
    path: normalizeFluxPath(sync.path),
    source: {
      apiVersion: `${SOURCE_GROUP}/v1`,
      kind: sync.kind,
      metadata,
      spec: sourceSpec,
    },
    kustomization: {
      apiVersion: `${KUSTOMIZE_GROUP}/v1`,
      kind: 'Kustomization',
      metadata,
      spec: {
        interval: '10m0s',
        path: sync.path,
        prune: true,
        sourceRef: { kind: sync.kind, name },
      },
    },
  };
}

/**
 * `found` with the source and Kustomization of each FluxInstance whose sync path lies in
 * the reviewed tree (the entry or a folder under it), as if written where the instance
 * is: the entry's own files then have the producer that applies them. A Kustomization or
 * source a file already defines under the same name stays, as bootstrap wrote it.
 */
export function withInstanceSyncs(found: Discovery): Discovery {
  const keyOf = (m: Manifest): string => {
    const meta = objectMeta(m);
    return `${meta.kind}/${meta.namespace ?? 'default'}/${meta.name}`;
  };
  const defined = new Set(
    [...found.kustomizations, ...found.sources].map((f) => keyOf(f.manifest)),
  );
  const kustomizations = [...found.kustomizations];
  const sources = [...found.sources];
  for (const { manifest, file, line } of found.instances) {
    const sync = reviewedInstanceSync(manifest, found.entry);
    if (sync === undefined) continue;
    for (const [list, object] of [
      [kustomizations, sync.kustomization],
      [sources, sync.source],
    ] as const) {
      const key = keyOf(object);
      if (defined.has(key)) continue;
      defined.add(key);
      list.push({ manifest: object, file, line });
    }
  }
  return { ...found, kustomizations, sources };
}

/**
 * instanceSync when the sync path lies in the reviewed tree (the entry or a folder under
 * it): a FluxInstance that syncs another cluster's folder applies nothing of this review.
 */
export function reviewedInstanceSync(manifest: Manifest, entry: string): InstanceSync | undefined {
  const sync = instanceSync(manifest);
  return sync !== undefined && inTree(entry, sync.path) ? sync : undefined;
}

/**
 * Whether a HelmRelease installs flux-operator's flux-instance chart: by chart name, or a
 * chartRef to an OCIRepository whose URL ends in `/flux-instance` (`source` looks it up).
 * When its chart cannot be rendered, the FluxInstance it would render is missing too.
 */
export function installsFluxInstance(
  release: Manifest,
  source: (kind: string, namespace: string, name: string) => Manifest | undefined,
): boolean {
  const spec = asRecord(release['spec']);
  if (asRecord(asRecord(spec['chart'])['spec'])['chart'] === FLUX_INSTANCE_CHART) return true;
  const ref = asRecord(spec['chartRef']);
  if (ref['kind'] !== 'OCIRepository' || typeof ref['name'] !== 'string') return false;
  const namespace =
    typeof ref['namespace'] === 'string'
      ? ref['namespace']
      : (objectMeta(release).namespace ?? 'default');
  const url = asRecord(source('OCIRepository', namespace, ref['name'])?.['spec'])['url'];
  return typeof url === 'string' && url.replace(/\/+$/, '').endsWith(`/${FLUX_INSTANCE_CHART}`);
}

/** The sync path a flux-instance release's inline values give (`instance.sync.path`). */
export function releaseSyncPath(release: Manifest): string | undefined {
  const values = asRecord(asRecord(release['spec'])['values']);
  const path = asRecord(asRecord(values['instance'])['sync'])['path'];
  return typeof path === 'string' && path !== '' ? normalizeFluxPath(path) : undefined;
}

const FLUX_INSTANCE_CHART = 'flux-instance';

function inTree(entry: string, path: string): boolean {
  return entry === '.' || path === entry || path.startsWith(`${entry}/`);
}
