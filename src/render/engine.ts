/**
 * The RenderEngine seam: one repository at one revision in, a RenderedCluster out.
 * Implementations: the builtin engine (default) and flux-local.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ToolRunner } from '../tool-runner.js';
import type { RenderedCluster } from '../model/index.js';
import type { RenderMemo } from './cache/index.js';
import type { SourceMapping } from './source-mapping.js';

export { RenderMemo, type RenderMemoCounts } from './cache/index.js';

export type EngineName = 'builtin' | 'flux-local';

export interface RenderRequest {
  /** The repository folder (its git root when `rev` is set). */
  repoDir: string;
  /** Render this revision's tree instead of the folder as it is on disk. */
  rev?: string;
  /** Entry folder relative to repoDir; '.' for the root. */
  entry: string;
  sources: readonly SourceMapping[];
  /** The repository's own URL, to recognise GitRepositories that point at it. */
  repoUrl?: string;
  /**
   * Shared by the renders of one cluster at a review's two revisions: the first keeps each
   * producer's outcome under its content key, and the second takes it for every producer
   * whose key is the same (it changed nothing that producer reads) instead of rendering
   * it again. Engines that key nothing ignore it.
   */
  memo?: RenderMemo;
}

/**
 * How chart downloads may use the network (see helm/chart-network.ts): bounds on connecting
 * and on the first byte of an answer, and whether repository-declared URLs may reach
 * non-public addresses.
 */
export interface ChartNetwork {
  /** 'deny' refuses repository-declared hosts that resolve to a non-public address. */
  privateAddresses: 'allow' | 'deny';
  connectTimeoutMs: number;
  /** From the connection to the response's status line. */
  responseTimeoutMs: number;
  /** The operator's chart registry credentials (FLUXLENS_REGISTRY_CONFIG); none when absent. */
  credentials?: RegistryCredentials | undefined;
}

/** What a registry credentials file entry holds: a login, or an OAuth2 refresh token. */
export type RegistrySecret =
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'identity-token'; token: string };

export interface RegistryCredential {
  /** `host` or `host:port` as URL.host writes it (lower case, no default port). */
  host: string;
  /** The entry was written `http://HOST`: it may also travel over plain HTTP. */
  plainHttp: boolean;
  secret: RegistrySecret;
}

/**
 * Credentials by host, read from the operator's file at startup (see helm/
 * registry-credentials.ts for where they may go). An implementation keeps the values out
 * of JSON and inspection: only the hosts may be shown.
 */
export interface RegistryCredentials {
  /** Hosts with an entry, sorted. */
  readonly hosts: readonly string[];
  forHost(host: string): RegistryCredential | undefined;
}

export const DEFAULT_CHART_NETWORK: ChartNetwork = {
  privateAddresses: 'allow',
  connectTimeoutMs: 10_000,
  responseTimeoutMs: 30_000,
};

export interface HelmSettings {
  /** Inflate HelmReleases into the objects of their charts. */
  enabled: boolean;
  /** Content-addressed chart cache shared by every render. */
  chartCacheDir: string;
  /** Use only the chart cache and charts inside the repository. */
  offline: boolean;
  /** .Capabilities.KubeVersion; helm's own default when unset. */
  kubeVersion?: string;
  /** Extra .Capabilities.APIVersions. */
  apiVersions: readonly string[];
  /** Leave CRDs out whatever the release's policy. */
  skipCrds: boolean;
  /** Render as an upgrade of an existing release (.Release.IsUpgrade, upgrade policies). */
  isUpgrade: boolean;
  maxChartBytes: number;
  /** Connect and response bounds of chart downloads, and which addresses they may reach. */
  network: ChartNetwork;
}

/**
 * A substituteFrom or valuesFrom ConfigMap or Secret that is not in the rendered cluster (an
 * ExternalSecret or an operator creates it): `assume` takes it as present with unknown
 * values and records that on the producer; `fail` fails the producer, as Flux would.
 */
export type InClusterSources = 'assume' | 'fail';

export interface RenderSettings {
  /** Missing substitution variables are errors (Flux 2.9's default). */
  strictSubstitution: boolean;
  inClusterSources: InClusterSources;
  allowRemoteBases: boolean;
  enableExecPlugins: boolean;
  /**
   * Build Kustomizations through one kustomize-server process when it is installed
   * (tools/kustomize-server: the same output, without a process per build); false: always a
   * kustomize process per build.
   */
  kustomizeServer: boolean;
  concurrency: number;
  toolTimeoutMs: number;
  maxOutputBytes: number;
  maxSourceFiles: number;
  helm: HelmSettings;
  /** Per-producer results kept on disk by content key; absent: every build runs. */
  cache?: { dir: string; maxBytes: number } | undefined;
}

/** Flux's own behaviour throughout; renderSettings gives what the CLI and the service ask. */
export const DEFAULT_RENDER_SETTINGS: RenderSettings = {
  strictSubstitution: true,
  inClusterSources: 'fail',
  allowRemoteBases: false,
  enableExecPlugins: false,
  kustomizeServer: true,
  concurrency: 2,
  toolTimeoutMs: 120_000,
  maxOutputBytes: 64 * 1024 * 1024,
  maxSourceFiles: 100_000,
  helm: {
    enabled: true,
    chartCacheDir: join(homedir(), '.fluxlens', 'cache', 'charts'),
    offline: false,
    apiVersions: [],
    skipCrds: false,
    isUpgrade: false,
    maxChartBytes: 64 * 1024 * 1024,
    network: DEFAULT_CHART_NETWORK,
  },
};

export interface RenderProgress {
  done: number;
  total: number;
}

export interface RenderEngine {
  readonly name: EngineName;
  render(
    request: RenderRequest,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster>;
}

export interface EngineDeps {
  runner: ToolRunner;
  settings: RenderSettings;
}
