/**
 * How a render is asked for: RenderOptions is plain, camelCase data that a CLI flag set or
 * a job payload carries; renderSettings adds what belongs to the machine (the chart cache,
 * parallelism, limits), which a request never chooses.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { RegistryCredentials } from '../model/index.js';
import {
  DEFAULT_CHART_CONNECT_TIMEOUT_MS,
  DEFAULT_CHART_RESPONSE_TIMEOUT_MS,
  DEFAULT_IN_CLUSTER_SOURCES,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TOOL_TIMEOUT_MS,
} from '../config.js';

export const EngineName = z.enum(['builtin', 'flux-local']);

export type EngineName = z.infer<typeof EngineName>;

/** The engine a request, a flag set or an Action run gets when it names none. */
export const DEFAULT_ENGINE: EngineName = 'builtin';

/**
 * How chart downloads may use the network (see helm/chart/chart-network.ts): bounds on connecting
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
  /**
   * How long a chart that could not be fetched is reported unavailable without asking the
   * network again (helm/chart/unavailable-memory.ts); absent or 0: every render asks.
   */
  unavailableTtlMs?: number | undefined;
  /** Ask the network again for charts remembered as unavailable (and remember anew). */
  retryUnavailable?: boolean | undefined;
}

export const DEFAULT_CHART_NETWORK: ChartNetwork = {
  privateAddresses: 'allow',
  connectTimeoutMs: DEFAULT_CHART_CONNECT_TIMEOUT_MS,
  responseTimeoutMs: DEFAULT_CHART_RESPONSE_TIMEOUT_MS,
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
  /**
   * Render HelmReleases through one helm-server process when it is installed
   * (tools/helm-server: the same output, without a helm process per release); false: always
   * a helm process per release.
   */
  helmServer: boolean;
  concurrency: number;
  toolTimeoutMs: number;
  maxOutputBytes: number;
  maxSourceFiles: number;
  helm: HelmSettings;
  /** Per-producer results kept on disk by content key; absent: every build runs. */
  cache?: { dir: string; maxBytes: number } | undefined;
}

/**
 * Flux's own behaviour, but for sources only the cluster holds (assumed present, as every
 * review does unless told otherwise); renderSettings gives what the CLI and the service ask.
 */
export const DEFAULT_RENDER_SETTINGS: RenderSettings = {
  strictSubstitution: true,
  inClusterSources: DEFAULT_IN_CLUSTER_SOURCES,
  allowRemoteBases: false,
  enableExecPlugins: false,
  kustomizeServer: true,
  helmServer: true,
  concurrency: 2,
  toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
  maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
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

const InClusterSources = z.enum(['assume', 'fail']) satisfies z.ZodType<InClusterSources>;

export const RenderOptions = z
  .object({
    /** Undefined substitution variables become empty (Flux before 2.9) instead of failing. */
    lenientSubstitution: z.boolean().default(false),
    /**
     * substituteFrom and valuesFrom sources only the cluster holds: assumed present with
     * unknown values, or failing their producer. Absent: the repository policy decides
     * (`assume` without one), since a repository that wants Flux's strictness says so there.
     */
    inClusterSources: InClusterSources.optional(),
    /** Let kustomize fetch remote resources. */
    allowRemoteBases: z.boolean().default(false),
    /** Let kustomize run exec plugins. */
    enableExecPlugins: z.boolean().default(false),
    /** Leave HelmReleases as plain objects instead of inflating their charts. */
    skipHelm: z.boolean().default(false),
    /** Charts only from the chart cache and the repository itself. */
    offline: z.boolean().default(false),
    /** Leave chart CRDs out whatever the release's CRD policy. */
    skipCrds: z.boolean().default(false),
    /** .Capabilities.KubeVersion for charts; helm's own default when absent. */
    kubeVersion: z.string().min(1).max(64).optional(),
    /** Extra .Capabilities.APIVersions. */
    apiVersions: z.array(z.string().min(1).max(256)).max(256).default([]),
    /** Render HelmReleases as upgrades of existing releases. */
    isUpgrade: z.boolean().default(false),
  })
  .strict();

export type RenderOptions = z.infer<typeof RenderOptions>;

/** The machine's part of the settings: where charts are cached, how much runs at once. */
export interface RenderMachine {
  chartCacheDir: string;
  concurrency: number;
  toolTimeoutMs: number;
  maxOutputBytes: number;
  /** Chart download bounds and address policy; the library default when absent. */
  chartNetwork?: ChartNetwork;
  /** Where build results are kept between renders, and how many bytes at most. */
  renderCache?: { dir: string; maxBytes: number } | undefined;
  /** Build through kustomize-server where it is installed (the default). */
  kustomizeServer?: boolean;
  /** Render through helm-server where it is installed (the default). */
  helmServer?: boolean;
}

export function renderSettings(machine: RenderMachine, options: RenderOptions): RenderSettings {
  return {
    ...DEFAULT_RENDER_SETTINGS,
    strictSubstitution: !options.lenientSubstitution,
    inClusterSources: options.inClusterSources ?? DEFAULT_IN_CLUSTER_SOURCES,
    allowRemoteBases: options.allowRemoteBases,
    enableExecPlugins: options.enableExecPlugins,
    helm: {
      ...DEFAULT_RENDER_SETTINGS.helm,
      enabled: !options.skipHelm,
      chartCacheDir: machine.chartCacheDir,
      offline: options.offline,
      skipCrds: options.skipCrds,
      apiVersions: options.apiVersions,
      isUpgrade: options.isUpgrade,
      ...(machine.chartNetwork !== undefined ? { network: machine.chartNetwork } : {}),
      ...(options.kubeVersion !== undefined ? { kubeVersion: options.kubeVersion } : {}),
    },
    ...(machine.renderCache !== undefined ? { cache: machine.renderCache } : {}),
    kustomizeServer: machine.kustomizeServer ?? true,
    helmServer: machine.helmServer ?? true,
    concurrency: machine.concurrency,
    toolTimeoutMs: machine.toolTimeoutMs,
    maxOutputBytes: machine.maxOutputBytes,
  };
}
