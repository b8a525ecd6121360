/**
 * The only reader of process.env. Every setting fluxlens takes from the environment is
 * declared, documented and validated here; tests pass their own env to loadConfig.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { SetupError } from './errors.js';

const positiveInt = (max: number) => z.coerce.number().int().min(1).max(max);

const EnvSchema = z.object({
  /** Where scripts/install-tools puts pinned tools; searched before PATH. */
  FLUXLENS_TOOLS_DIR: z.string().min(1).optional(),
  /**
   * Parallel kustomize builds. Defaults to the CPU count: builds are CPU-bound and
   * short, so more would only queue.
   */
  FLUXLENS_CONCURRENCY: positiveInt(64).optional(),
  /** Seconds one tool run may take before it is killed and reported as a per-producer error. */
  FLUXLENS_TOOL_TIMEOUT_SECONDS: positiveInt(3600).default(120),
  /** Cap on one tool run's output; a bigger render is an error rather than an OOM. */
  FLUXLENS_MAX_OUTPUT_MB: positiveInt(4096).default(64),
  /** Content-addressed chart cache; shared by every render so one chart version is fetched once. */
  FLUXLENS_CACHE_DIR: z.string().min(1).optional(),
  PATH: z.string().default(''),
});

/** Variables a tool run may inherit; anything else (tokens, secrets) is kept from tools. */
const TOOL_ENV_ALLOWLIST = ['HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ', 'USER'] as const;

export interface Config {
  toolsBinDir: string;
  /** PATH for tool lookups and for tools that call tools (flux-local calls kustomize). */
  path: string;
  toolEnv: Record<string, string>;
  concurrency: number;
  toolTimeoutMs: number;
  maxOutputBytes: number;
  chartCacheDir: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cpuCount = 2): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SetupError(
      `invalid environment: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
    );
  }
  const e = parsed.data;
  const toolEnv: Record<string, string> = {};
  for (const key of TOOL_ENV_ALLOWLIST) {
    const value = env[key];
    if (value !== undefined) toolEnv[key] = value;
  }
  return {
    toolsBinDir: join(e.FLUXLENS_TOOLS_DIR ?? join(homedir(), '.fluxlens', 'tools'), 'bin'),
    path: e.PATH,
    toolEnv,
    concurrency: e.FLUXLENS_CONCURRENCY ?? Math.max(1, cpuCount),
    toolTimeoutMs: e.FLUXLENS_TOOL_TIMEOUT_SECONDS * 1000,
    maxOutputBytes: e.FLUXLENS_MAX_OUTPUT_MB * 1024 * 1024,
    chartCacheDir: join(e.FLUXLENS_CACHE_DIR ?? join(homedir(), '.fluxlens', 'cache'), 'charts'),
  };
}
