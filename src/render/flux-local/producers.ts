/**
 * What the flux-local engine reports about a Kustomization: its Producer, built from the
 * file under the entry or its parent's output, and the small readers of Flux fields the
 * other flux-local-* files share. Pure functions of the Workspace: it must not run tools.
 */
import { type FoundObject, normalizeFluxPath } from '../flux/index.js';
import {
  asRecord,
  producerKey,
  stringOf,
  toRef,
  type Manifest,
  type Producer,
  type ProducerRef,
  type RenderError,
} from '../../model/index.js';

/** Where errors go that flux-local does not tie to one Kustomization. */
export const FLUX_LOCAL_RUN: ProducerRef = {
  kind: 'Kustomization',
  namespace: '',
  name: 'flux-local',
};
export const RUN_KEY = producerKey(FLUX_LOCAL_RUN);
export const DEFAULT_NAMESPACE = 'default';

/** A `--source` mapping as flux-local gets it in --sources. */
export interface MappedSource {
  key: string;
  /** Absolute folder handed to flux-local, or undefined when it is the repository itself. */
  root: string | undefined;
}

/** The scratch folder of one render and what was found in it before flux-local ran. */
export interface Workspace {
  dir: string;
  repoRoot: string;
  files: Map<string, FoundObject>;
  /** HelmReleases written under the entry, by producer key; empty unless helm is enabled. */
  releaseFiles: Map<string, FoundObject>;
  mapped: MappedSource[];
}

/** The Kustomizations found in the `build ks` output, by producer key, with the producer whose output holds them. */
export type RenderedKustomizations = ReadonlyMap<
  string,
  { manifest: Manifest; parent: ProducerRef }
>;

/**
 * A Kustomization's Producer: its spec from its file under the entry when there is one
 * (flux-local reads it from there), else from its parent's rendered output; its path is
 * the one flux-local listed, when it did.
 */
export function describeKustomization(
  ws: Workspace,
  ref: ProducerRef,
  rendered: RenderedKustomizations,
  listedPath?: string,
): Producer {
  const key = producerKey(ref);
  const file = ws.files.get(key);
  const fromParent = rendered.get(key);
  // flux-local reads Kustomizations under --path from their files first.
  const manifest = file?.manifest ?? fromParent?.manifest;
  const spec = asRecord(manifest?.['spec']);
  const sourceRef = manifest ? sourceRefOf(manifest) : undefined;
  const dependsOn = Array.isArray(spec['dependsOn'])
    ? (spec['dependsOn'] as unknown[]).map(asRecord)
    : [];
  const producer: Producer = {
    ...toRef(ref),
    path:
      listedPath !== undefined
        ? sourcePath(ws, listedPath)
        : normalizeFluxPath(stringOf(spec['path'])),
    source: sourceRef
      ? `${sourceRef.kind}/${sourceRef.namespace ?? ref.namespace}/${sourceRef.name}`
      : '',
    suspend: spec['suspend'] === true,
    prune: spec['prune'] === true,
    dependsOn: dependsOn
      .filter((d) => typeof d['name'] === 'string')
      .map((d) => ({
        kind: 'Kustomization' as const,
        namespace: stringOf(d['namespace']) ?? ref.namespace,
        name: d['name'] as string,
      })),
    definedIn: file
      ? { file: file.file, line: file.line }
      : fromParent && ![key, RUN_KEY].includes(producerKey(fromParent.parent))
        ? { parent: fromParent.parent }
        : { file: '' },
  };
  return producer;
}

/** flux-local's path (repository-relative, or inside a mapped source copy) as a path in its source. */
export function sourcePath(ws: Workspace, path: string): string {
  for (const m of ws.mapped) {
    if (m.root !== undefined && (path === m.root || path.startsWith(`${m.root}/`))) {
      return normalizeFluxPath(path.slice(m.root.length));
    }
  }
  return normalizeFluxPath(path);
}

/** The error with the producer's file, when the producer was defined in one. */
export function withFile(error: RenderError, producer: Producer): RenderError {
  return 'file' in producer.definedIn && producer.definedIn.file !== ''
    ? { ...error, file: producer.definedIn.file }
    : error;
}

export function sourceRefOf(
  manifest: Manifest,
): { kind: string; name: string; namespace?: string } | undefined {
  const ref = asRecord(asRecord(manifest['spec'])['sourceRef']);
  const name = stringOf(ref['name']);
  if (name === undefined) return undefined;
  const namespace = stringOf(ref['namespace']);
  return {
    kind: stringOf(ref['kind']) ?? 'GitRepository',
    name,
    ...(namespace !== undefined ? { namespace } : {}),
  };
}

export function sortProducers(producers: ReadonlyMap<string, Producer>): Producer[] {
  return [...producers.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, p]) => p);
}
