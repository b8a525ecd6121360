/**
 * How a render is asked for: RenderOptions is plain, camelCase data that a CLI flag set or
 * a job payload carries; renderSettings adds what belongs to the machine (the chart cache,
 * parallelism, limits), which a request never chooses.
 */
import { z } from 'zod';
import {
  DEFAULT_RENDER_SETTINGS,
  type ChartNetwork,
  type EngineName,
  type InClusterSources,
  type RenderSettings,
} from './engine.js';

export const EngineNameSchema = z.enum(['builtin', 'flux-local']) satisfies z.ZodType<EngineName>;

const InClusterSourcesSchema = z.enum(['assume', 'fail']) satisfies z.ZodType<InClusterSources>;

export const RenderOptionsSchema = z
  .object({
    /** Undefined substitution variables become empty (Flux before 2.9) instead of failing. */
    lenientSubstitution: z.boolean().default(false),
    /**
     * substituteFrom and valuesFrom sources only the cluster holds: assumed present with
     * unknown values, or failing their producer. Absent: the repository policy decides
     * (`assume` without one), since a repository that wants Flux's strictness says so there.
     */
    inClusterSources: InClusterSourcesSchema.optional(),
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

export type RenderOptions = z.infer<typeof RenderOptionsSchema>;

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
}

export function renderSettings(machine: RenderMachine, options: RenderOptions): RenderSettings {
  return {
    ...DEFAULT_RENDER_SETTINGS,
    strictSubstitution: !options.lenientSubstitution,
    inClusterSources: options.inClusterSources ?? 'assume',
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
    concurrency: machine.concurrency,
    toolTimeoutMs: machine.toolTimeoutMs,
    maxOutputBytes: machine.maxOutputBytes,
  };
}
