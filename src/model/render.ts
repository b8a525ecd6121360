/**
 * The renderer's output model: what Flux would apply, attributed to the Flux object
 * that applies it. Every later step (diff, risk, report) reads these types.
 */
import { asRecord } from './records.js';

export type Manifest = Record<string, unknown>;

/**
 * What applies objects: Flux's Kustomizations and HelmReleases, and flux-operator's
 * ResourceSets, whose objects are expanded from their templates.
 */
export type ProducerKind = 'Kustomization' | 'HelmRelease' | 'ResourceSet';

/** The API group of each kind of producer. */
export const PRODUCER_GROUPS: Readonly<Record<ProducerKind, string>> = {
  Kustomization: 'kustomize.toolkit.fluxcd.io',
  HelmRelease: 'helm.toolkit.fluxcd.io',
  ResourceSet: 'fluxcd.controlplane.io',
};

export interface ProducerRef {
  kind: ProducerKind;
  namespace: string;
  name: string;
}

export interface Producer extends ProducerRef {
  /** Path inside its source, normalised as Flux resolves it ('.' for the root). */
  path: string;
  /** The source the path is read from, e.g. GitRepository/flux-system/flux-system. */
  source: string;
  suspend: boolean;
  prune: boolean;
  dependsOn: ProducerRef[];
  /** Where the producer itself is defined: a file in the repository, or a parent producer. */
  definedIn: { file: string; line?: number } | { parent: ProducerRef };
  /** Set when this producer did not render; its objects are missing from the cluster. */
  error?: string;
  /** Set when rendering was not attempted (e.g. an unmapped remote source). */
  skipped?: string;
  /**
   * What the render took as given because the rendered cluster lacks it: one clause per
   * substituteFrom or valuesFrom ConfigMap or Secret that only the cluster holds (an
   * ExternalSecret or an operator creates it), rendered as present with unknown values,
   * e.g. `the rendered cluster has no Secret flux-system/cluster-secrets: ...`. Absent when
   * nothing was assumed.
   */
  assumed?: string[];
  /**
   * A digest of everything its render read: its definition, every file its build can
   * read, the values it was given, its chart, the tools. Equal at base and head: the PR
   * leaves its render alone, even where it failed. Absent where it was not keyed (a
   * remote base, a chart that could not be fetched, flux-local).
   */
  inputKey?: string;
  /**
   * Set on the Kustomization no file defines that the render assumed by Flux's convention:
   * nothing in the repository applies the entry folder, so it is applied as `flux bootstrap`
   * does, by a Kustomization flux-system/flux-system over the folder in this repository.
   */
  byConvention?: 'flux-bootstrap';
}

export interface RenderedObject {
  producer: ProducerRef;
  /** Repository-relative source file, where kustomize could tell. */
  file?: string;
  /** 1-based line in `file` where the object's document starts, where it could be told apart. */
  line?: number;
  manifest: Manifest;
  /** Where `manifest` holds text derived from a Secret value; absent when it holds none. */
  secret?: SecretDerived;
}

/**
 * Text a producer derived from Secret values (substituted from a Secret, Helm values read
 * from one): every output hides it, also where it is too short to be searched for.
 */
export interface SecretDerived {
  /** Derived strings long enough to be hidden wherever they occur (see redact/). */
  texts: string[];
  fields: SecretField[];
}

/** A field hidden whole: the value at `path` (keys and list indexes), or with `key` its key. */
export interface SecretField {
  path: Array<string | number>;
  key?: true;
}

/**
 * Stable causes a consumer may act on; the message stays the human-readable detail. An
 * error without a code is a content error: one Flux would fail on too, which a PR can
 * introduce or fix. `chart-unavailable`: see isUnavailable. `applied-twice`: the producer
 * rendered, but applies an object another producer applies too; Flux applies both and
 * neither fails, so it is a conflict for the risk step to judge, not a failure to render.
 * `remote-base-refused`: a kustomization names a remote base and the render settings do
 * not allow fetching one; it counts as a content error, as before it had a code.
 */
export const RENDER_ERROR_CODES = [
  'chart-unavailable',
  'applied-twice',
  'remote-base-refused',
] as const;
export type RenderErrorCode = (typeof RENDER_ERROR_CODES)[number];

export interface RenderError {
  producer: ProducerRef;
  file?: string;
  message: string;
  code?: RenderErrorCode;
  /**
   * Set with `code`: the chart was only missing from the cache of an offline render
   * (settings.helm.offline), which Flux would simply fetch.
   */
  offline?: boolean;
}

/**
 * The producer failed because fluxlens could not have what Flux may well get (network,
 * credentials, its own bounds, an offline cache miss), not for a defect in the repository:
 * such an error proves nothing about the PR, so it is never introduced nor fixed by it.
 */
export function isUnavailable(error: RenderError): boolean {
  return error.code === 'chart-unavailable';
}

/** The machine-readable part of a RenderError, carried from a build to the cluster. */
export type RenderErrorTags = Pick<RenderError, 'code' | 'offline'>;

export interface RenderedCluster {
  producers: Producer[];
  objects: RenderedObject[];
  errors: RenderError[];
  tools: Record<string, string>;
  /**
   * Builds taken from the render cache, and builds that ran; absent without a cache.
   * `whole`: the render of this commit was read back whole from the cache (nothing built).
   * `carried`: Kustomizations keyed from the record of what they read at the review's other
   * revision, none of which git says changed: their files were neither read nor digested.
   */
  cache?: { hits: number; misses: number; whole?: true; carried?: number };
  /**
   * Set by an engine on a render it keeps whole (or read back whole): rendering the same
   * commit with the same tools and settings gives this cluster again as long as the
   * unavailable memory still holds each failure in `holds`, tokens only that engine reads
   * (render's keptRendersStillHold). What follows from such renders alone may be kept too.
   */
  kept?: { holds: string[] };
  /**
   * What the render read of the reviewed repository, to account for every file a review
   * changes; absent where the engine cannot tell (flux-local) and in renders kept before it.
   */
  reads?: RepositoryReads;
}

/** The files of the reviewed repository a render read, and the rules that left files out. */
export interface RepositoryReads {
  /** Repository-relative files read by producers that rendered (their output is diffed), sorted. */
  files: string[];
  /**
   * One list per artifact of the repository the render read it through (a GitRepository's
   * spec.ignore shapes its own): the rules in source-controller's order, the last match
   * deciding. A file every list leaves out is in no artifact.
   */
  ignore: IgnoreRule[][];
}

export interface IgnoreRule {
  /** The folder the pattern applies within ('' for the whole repository). */
  dir: string;
  pattern: string;
  /** Where it is written: `.sourceignore` file, `spec.ignore of GitRepository ns/name`, defaults. */
  from: string;
}

export function producerKey(ref: ProducerRef): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** The objectId of the producer's own object, as its parent renders it. */
export function producerObjectId(ref: ProducerRef): string {
  return `${PRODUCER_GROUPS[ref.kind]}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

export function toRef(ref: ProducerRef): ProducerRef {
  return { kind: ref.kind, namespace: ref.namespace, name: ref.name };
}

/** apiVersion's group ('' for the core group). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export interface ObjectMeta {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | undefined;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(asRecord(value))) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The identifying fields of a manifest, tolerant of missing or mistyped values. */
export function objectMeta(manifest: Manifest): ObjectMeta {
  const metadata = asRecord(manifest['metadata']);
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const ns = metadata['namespace'];
  return {
    apiVersion: str(manifest['apiVersion']),
    kind: str(manifest['kind']),
    name: str(metadata['name']),
    namespace: typeof ns === 'string' && ns !== '' ? ns : undefined,
    labels: stringRecord(metadata['labels']),
    annotations: stringRecord(metadata['annotations']),
  };
}

/** Stable identity across revisions: group, kind, namespace, name (not version). */
export function objectId(manifest: Manifest): string {
  const m = objectMeta(manifest);
  return `${apiGroup(m.apiVersion)}/${m.kind}/${m.namespace ?? ''}/${m.name}`;
}
