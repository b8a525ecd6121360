/** What chart resolution needs from the render that asks for it, and what it returns. */
import type { ToolRunner } from '../../../tool-runner.js';
import type { ChartNetwork } from '../../settings.js';

export interface ChartSourceContext {
  runner: ToolRunner;
  /** Flux source objects in the rendered cluster (HelmRepository, GitRepository, OCIRepository, Bucket, HelmChart), by kind/namespace/name. */
  lookup: (kind: string, namespace: string, name: string) => Record<string, unknown> | undefined;
  /** Folder of a GitRepository/Bucket/OCIRepository/ExternalArtifact source that is this repository or mapped by the user, else undefined. */
  sourceDir: (kind: string, namespace: string, name: string) => Promise<string | undefined>;
  /** Content-addressed chart cache, shared by every render. */
  cacheDir: string;
  /** Only the cache and the repository itself; nothing is fetched. */
  offline: boolean;
  /** Per download (index, chart archive, `helm pull`). */
  timeoutMs: number;
  /** Cap on a downloaded chart archive; its unpacked files may be UNPACKED_RATIO times this. */
  maxChartBytes: number;
  /** Cap on a repository's index.yaml; source-controller's default is 50 MiB. */
  maxIndexBytes?: number;
  /**
   * Connect and response bounds, the address policy and the operator's registry
   * credentials of every download; credentials never come from the repository's Secrets.
   */
  network?: ChartNetwork;
}

export interface ResolvedChart {
  /** An unpacked chart folder of this render's own (a copy; the caller may change it). */
  dir: string;
  /** From the chart's Chart.yaml. */
  name: string;
  /** The version helm-controller records (for chartRef OCIRepository: `VERSION+DIGEST12`). */
  version: string;
  /** `sha256:...` of the archive (HelmRepository) or of the OCI manifest; absent for charts in a source folder. */
  digest?: string;
  /** Where the chart came from, e.g. `HelmRepository/flux-system/podinfo`. */
  source: string;
  /** For a chart inside a GitRepository or Bucket: the source folder valuesFiles resolve against. */
  sourceRoot?: string;
}

/** Unpacked charts compress about this well; the cap on unpacked bytes is this × maxChartBytes. */
export const UNPACKED_RATIO = 10;
export const DEFAULT_MAX_INDEX_BYTES = 50 * 1024 * 1024;
