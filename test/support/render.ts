/** Builds the real engines the way the CLI does, for tests. */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../src/analysis/index.js';
import { loadConfig } from '../../src/config.js';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { BuiltinEngine } from '../../src/render/builtin/engine.js';
import {
  DEFAULT_RENDER_SETTINGS,
  type HelmSettings,
  type RenderSettings,
  type EngineName,
  type RenderMachine,
  RenderOptions,
  type SourceMapping,
} from '../../src/render/index.js';
import { ToolRunner } from '../../src/tool-runner.js';
import { fluxLocalFixtures } from './paths.js';

export function testRunner(): ToolRunner {
  const config = loadConfig();
  return new ToolRunner({
    toolsBinDir: config.toolsBinDir,
    path: config.path,
    baseEnv: config.toolEnv,
  });
}

/** Tests never reach the internet: charts come from the repository or a per-run cache. */
export const testHelmSettings: HelmSettings = {
  ...DEFAULT_RENDER_SETTINGS.helm,
  offline: true,
  chartCacheDir: mkdtempSync(join(tmpdir(), 'fluxlens-charts-')),
};

/** The machine part of render settings for tests: the per-run chart cache, default limits. */
export const testMachine: RenderMachine = {
  chartCacheDir: testHelmSettings.chartCacheDir,
  concurrency: DEFAULT_RENDER_SETTINGS.concurrency,
  toolTimeoutMs: DEFAULT_RENDER_SETTINGS.toolTimeoutMs,
  maxOutputBytes: DEFAULT_RENDER_SETTINGS.maxOutputBytes,
};

/** What a request carries in tests: defaults, offline (tests never reach the internet). */
export const testRenderOptions: RenderOptions = RenderOptions.parse({ offline: true });

export function builtinEngine(settings: Partial<RenderSettings> = {}): BuiltinEngine {
  return new BuiltinEngine({
    runner: testRunner(),
    settings: { ...DEFAULT_RENDER_SETTINGS, helm: testHelmSettings, ...settings },
  });
}

/** Lays the flux-local fixtures out as flux-local's repository does: <root>/tests/testdata. */
export function fluxLocalRepo(): string {
  const root = mkdtempSync(join(tmpdir(), 'fluxlens-fixtures-'));
  cpSync(join(fluxLocalFixtures, 'testdata'), join(root, 'tests', 'testdata'), { recursive: true });
  return root;
}

/** What a review says, but how long it took and what it counted on the way. */
export const withoutTimings = ({ timings: _timings, ...rest }: AnalysisResult) => rest;

/**
 * The review of `base`..`head` of the repository in `repoDir` as most tests want it: the
 * cluster at clusters/prod, the builtin engine, offline, the test machine and a clock at 0.
 */
export async function analyzeBranches(
  repoDir: string,
  base: string,
  head: string,
  overrides: {
    render?: RenderOptions;
    engine?: EngineName;
    machine?: RenderMachine;
    sources?: SourceMapping[];
  } = {},
): Promise<AnalysisResult> {
  const { result } = await analyze(
    {
      repoDir,
      base,
      head,
      paths: ['clusters/prod'],
      engine: overrides.engine ?? 'builtin',
      render: overrides.render ?? testRenderOptions,
      sources: overrides.sources ?? [],
    },
    { runner: testRunner(), machine: overrides.machine ?? testMachine, now: () => 0 },
  );
  return result;
}
