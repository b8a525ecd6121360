/**
 * Reads flux-local's output into the render model: the `get ks` table, the objects of
 * `build ks` attributed by their owner labels, and the inflated HelmReleases added on top.
 * It must not run flux-local nor decide what a failed run reports (flux-local-failure.ts).
 */
import { describeRelease, type InflatedRelease } from './helm.js';
import {
  DEFAULT_NAMESPACE,
  FLUX_LOCAL_RUN,
  RUN_KEY,
  describeKustomization,
  sortProducers,
  type Workspace,
} from './producers.js';
import { isFluxKustomization, refOf } from '../flux/index.js';
import {
  asRecord,
  isRecord,
  objectMeta,
  producerKey,
  type Manifest,
  type Producer,
  type ProducerRef,
  type RenderedCluster,
  type RenderedObject,
  type RenderError,
} from '../../model/index.js';

const OWNER_NAME_LABEL = 'kustomize.toolkit.fluxcd.io/name';
const OWNER_NAMESPACE_LABEL = 'kustomize.toolkit.fluxcd.io/namespace';
/** Annotations kustomize's kio adds when flux-local pipes output through `kustomize cfg grep`. */
export const FLUX_LOCAL_STRIPPED_ANNOTATIONS = [
  'config.kubernetes.io/index',
  'internal.config.kubernetes.io/index',
] as const;

/** One row of the `get ks -A` table. */
export interface ListedKustomization {
  namespace: string;
  name: string;
  /** flux-local's path: repository-relative, or absolute inside a mapped source copy. */
  path: string;
}

/** Parses `get ks -A` output: a table whose columns are padded to a common width. */
export function parseKustomizationTable(stdout: string): ListedKustomization[] {
  const lines = stdout.split('\n');
  const headerAt = lines.findIndex((l) => /^(CLUSTER\s+)?NAMESPACE\s+NAME\s+PATH\b/.test(l));
  if (headerAt < 0) return [];
  const header = lines[headerAt]!;
  const columns = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], start: m.index }));
  const out: ListedKustomization[] = [];
  for (const line of lines.slice(headerAt + 1)) {
    if (line.trim() === '') continue;
    const cell = (name: string): string => {
      const i = columns.findIndex((c) => c.name === name);
      const start = columns[i]!.start;
      const end = i + 1 < columns.length ? columns[i + 1]!.start : line.length;
      return i + 1 < columns.length ? line.slice(start, end).trim() : line.slice(start).trimEnd();
    };
    const namespace = cell('NAMESPACE');
    const name = cell('NAME');
    if (namespace && name) out.push({ namespace, name, path: cell('PATH') });
  }
  return out;
}

/**
 * The cluster `build ks` rendered: its objects attributed to the Kustomization their owner
 * labels name (else to FLUX_LOCAL_RUN, with an error), a Producer for each listed
 * Kustomization, and the ones written under the entry that flux-local did not select, skipped.
 */
export function assembleCluster(
  ws: Workspace,
  listed: readonly ListedKustomization[],
  manifests: readonly Manifest[],
  tools: Record<string, string>,
): RenderedCluster {
  const rendered = new Map<string, { manifest: Manifest; parent: ProducerRef }>();
  const objects: RenderedObject[] = [];
  let unowned = 0;
  for (const manifest of manifests) {
    stripIndexAnnotations(manifest);
    const meta = objectMeta(manifest);
    const name = meta.labels[OWNER_NAME_LABEL];
    const namespace = meta.labels[OWNER_NAMESPACE_LABEL];
    const owned = name !== undefined && namespace !== undefined;
    const owner: ProducerRef = owned
      ? { kind: 'Kustomization', namespace, name }
      : { ...FLUX_LOCAL_RUN };
    if (!owned) unowned++;
    objects.push({ producer: owner, manifest });
    if (isFluxKustomization(manifest) && meta.name !== '') {
      const key = producerKey(refOf(manifest, owner.namespace));
      if (!rendered.has(key)) rendered.set(key, { manifest, parent: owner });
    }
  }

  const producers = new Map<string, Producer>();
  for (const ks of listed) {
    const ref: ProducerRef = { kind: 'Kustomization', namespace: ks.namespace, name: ks.name };
    producers.set(producerKey(ref), describeKustomization(ws, ref, rendered, ks.path));
  }
  // Owners flux-local did not list (it lists what it builds, so this is defensive).
  for (const o of objects) {
    const key = producerKey(o.producer);
    if (key !== RUN_KEY && !producers.has(key))
      producers.set(key, describeKustomization(ws, o.producer, rendered));
  }
  // Kustomizations written under the entry that flux-local did not select.
  for (const [key, item] of ws.files) {
    if (producers.has(key)) continue;
    const producer = describeKustomization(ws, refOf(item.manifest, DEFAULT_NAMESPACE), rendered);
    producer.skipped = notSelectedReason(producer.source);
    producers.set(key, producer);
  }

  const errors: RenderError[] = [];
  if (unowned > 0) {
    errors.push({
      producer: { ...FLUX_LOCAL_RUN },
      message: `flux-local output has ${unowned} object(s) without the ${OWNER_NAME_LABEL} and ${OWNER_NAMESPACE_LABEL} labels`,
    });
  }
  return { producers: sortProducers(producers), objects, errors, tools };
}

/**
 * Adds the inflated HelmReleases: their producers, chart objects and errors; and, as
 * skipped, the HelmReleases written under the entry that no built Kustomization applies
 * (flux-local inflates only those).
 */
export function withReleases(
  ws: Workspace,
  cluster: RenderedCluster,
  inflated: readonly InflatedRelease[],
): RenderedCluster {
  const producers = new Map(cluster.producers.map((p) => [producerKey(p), p]));
  const objects = [...cluster.objects];
  const errors = [...cluster.errors];
  for (const release of inflated) {
    producers.set(producerKey(release.producer), release.producer);
    objects.push(...release.objects);
    if (release.error) errors.push(release.error);
  }
  const names = new Set(inflated.map((r) => r.producer.name));
  for (const [key, item] of ws.releaseFiles) {
    const ref = refOf(item.manifest, DEFAULT_NAMESPACE);
    // A parent may have moved it to another namespace: then it did render, under that key.
    if (producers.has(key) || names.has(ref.name)) continue;
    const producer = describeRelease(ref, item.manifest, { file: item.file, line: item.line });
    producer.skipped =
      'flux-local inflates only HelmReleases that a Kustomization it builds applies';
    producers.set(key, producer);
  }
  return { ...cluster, producers: sortProducers(producers), objects, errors };
}

function notSelectedReason(source: string): string {
  const kind = source.split('/')[0];
  if (kind && kind !== 'GitRepository') {
    const name = source.split('/').pop() ?? '';
    return `flux-local does not render ${kind} sources without a mapping (use --source ${name}=DIR)`;
  }
  return 'flux-local did not select this Kustomization';
}

/** Removes FLUX_LOCAL_STRIPPED_ANNOTATIONS from an object, its pod template and a List's items. */
export function stripIndexAnnotations(manifest: Manifest): void {
  const strip = (metadata: unknown): void => {
    const meta = asRecord(metadata);
    const annotations = meta['annotations'];
    if (!isRecord(annotations)) return;
    for (const key of FLUX_LOCAL_STRIPPED_ANNOTATIONS) delete annotations[key];
    if (Object.keys(annotations).length === 0) delete meta['annotations'];
  };
  strip(manifest['metadata']);
  strip(asRecord(asRecord(manifest['spec'])['template'])['metadata']);
  if (manifest['kind'] === 'List' && Array.isArray(manifest['items'])) {
    for (const item of manifest['items']) strip(asRecord(item)['metadata']);
  }
}
