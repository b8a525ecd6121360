/**
 * The diff step's output: how each object of one cluster changes between the PR's
 * base and head. Manifests in here are already redacted: no Secret value survives.
 */
import type { Manifest, ProducerRef, RenderError } from './render.js';

export type ChangeStatus = 'added' | 'removed' | 'changed' | 'moved';

/** One changed field path (dot/bracket notation, named list items by name: `spec.template.spec.containers[app].image`). */
export interface FieldChange {
  path: string;
  /** added: absent at base; removed: absent at head; changed: present on both sides. */
  change: 'added' | 'removed' | 'changed';
}

export interface ResourceChange {
  /** Identity across revisions: `group/kind/namespace/name` (objectId in render/model.ts). */
  id: string;
  status: ChangeStatus;
  /** For `moved`: whether the content changed too. Always true for `changed`. */
  contentChanged: boolean;
  /** The cluster (entry path name) this object belongs to. */
  cluster: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** The producer at head (at base for a removal). */
  producer: ProducerRef;
  /** The producer at base, for `moved`. */
  previousProducer?: ProducerRef;
  /** Source file at head (at base for a removal), where known. */
  file?: string;
  /** 1-based line in `file` where the object's document starts, where known. */
  line?: number;
  /** Redacted manifests; `old` absent for added, `new` absent for removed. */
  old?: Manifest;
  new?: Manifest;
  fields: FieldChange[];
  /** Unified diff over sorted-key YAML with 3 lines of context; redacted. */
  diff: string;
}

export interface ImageChange {
  /** Normalised repository, e.g. `docker.io/library/nginx`. */
  repository: string;
  /** Tag or digest reference at base (absent when the image is new). */
  from?: string;
  /** At head (absent when the image is gone). */
  to?: string;
}

/**
 * One chart move: the same chart from one version to another, or from one source to
 * another (at the same version or not), merged over every place that picks it
 * (OCIRepositories, HelmCharts, HelmReleases' own spec.chart), with the releases that
 * install it.
 */
export interface ChartChange {
  /** Display name: the OCI url's last path segment, or the chart's name. */
  chart: string;
  /** Where it comes from: the OCI url, the HelmRepository's url, or `Kind/namespace/name` when the cluster lacks that object. At head when the chart is installed there. */
  source: string;
  /**
   * The source at base when the PR moves the chart to another source (another registry,
   * repository or mirror); `source` is then head's. Absent when the source stays, and for
   * a chart that is new or gone.
   */
  fromSource?: string;
  /**
   * The version picked at base (absent when the chart is new): an OCIRepository's tag or
   * semver range, `@digest` when pinned, `latest` when it names none; a HelmRelease's or
   * HelmChart's version (`*` when it names none).
   */
  from?: string;
  /** At head (absent when no release installs the chart any more). */
  to?: string;
  /** `HelmRelease/namespace/name` of every release that installs it, on either side, sorted. */
  producers: string[];
}

export interface DiffSummary {
  added: number;
  removed: number;
  changed: number;
  moved: number;
  /** `Kind/namespace/name` of every producer with at least one change, sorted. */
  producers: string[];
  namespaces: string[];
  /** Names of CustomResourceDefinitions added, removed or changed. */
  crds: string[];
  images: ImageChange[];
  /**
   * Chart version and source moves, sorted by chart, source, fromSource, from, to. Set by
   * every diff; absent only in results stored before it existed.
   */
  charts?: ChartChange[];
  /** Render errors at head whose producer rendered at base (or did not exist). */
  errorsIntroduced: RenderError[];
  /** Render errors at base that are gone at head. */
  errorsFixed: RenderError[];
}

export interface ClusterDiff {
  cluster: string;
  changes: ResourceChange[];
  summary: DiffSummary;
}
