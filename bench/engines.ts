/**
 * Engine benchmark: the builtin engine against the flux-local engine, in-process, on
 * flux-local's own test repositories, reported as ratios because this machine is noisy.
 * `node --import tsx bench/engines.ts [--runs N]`. Needs ../shared/fixtures/flux-local.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { BuiltinEngine } from '../src/render/builtin/engine.js';
import {
  DEFAULT_RENDER_SETTINGS,
  type RenderEngine,
  type RenderSettings,
} from '../src/render/index.js';
import { FluxLocalEngine } from '../src/render/flux-local/engine.js';
import { ToolRunner } from '../src/tool-runner.js';

const fixtures = resolve(
  import.meta.dirname,
  '..',
  '..',
  'shared',
  'fixtures',
  'flux-local',
  'testdata',
);
const CASES = [
  { name: 'cluster (4 Kustomizations, substitution)', entry: 'tests/testdata/cluster' },
  { name: 'cluster8 (valuesFrom, images)', entry: 'tests/testdata/cluster8' },
  {
    name: 'cluster9 (Flux components, local chart)',
    entry: 'tests/testdata/cluster9/clusters/dev',
  },
  { name: 'cluster12 (local chart with CRDs)', entry: 'tests/testdata/cluster12/cluster' },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function time(fn: () => Promise<unknown>, runs: number): Promise<number> {
  await fn(); // warm-up: chart cache, page cache, JIT
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
  const runs = Number(values.runs);
  if (!existsSync(fixtures)) throw new Error(`fixtures not found at ${fixtures}`);
  const repo = mkdtempSync(join(tmpdir(), 'fluxlens-bench-'));
  cpSync(fixtures, join(repo, 'tests', 'testdata'), { recursive: true });
  execFileSync('git', ['init', '-q', repo]);
  const config = loadConfig();
  const runner = new ToolRunner({
    toolsBinDir: config.toolsBinDir,
    path: config.path,
    baseEnv: config.toolEnv,
  });
  const settings: RenderSettings = {
    ...DEFAULT_RENDER_SETTINGS,
    // flux-local fails a producer whose in-cluster source is missing: compare like with like.
    inClusterSources: 'fail',
    concurrency: config.concurrency,
    helm: { ...DEFAULT_RENDER_SETTINGS.helm, offline: true, chartCacheDir: join(repo, '.cache') },
  };
  const engines: RenderEngine[] = [
    new BuiltinEngine({ runner, settings }),
    new FluxLocalEngine({ runner, settings }),
  ];
  console.log(`median of ${runs} warm runs per engine; ratio = flux-local / builtin`);
  for (const c of CASES) {
    const request = { repoDir: repo, entry: c.entry, sources: [] };
    // One engine at a time: concurrent runs would share the two cores and skew both.
    const builtin = await time(() => engines[0]!.render(request), runs);
    const fluxLocal = await time(() => engines[1]!.render(request), runs);
    console.log(
      `${c.name}: builtin ${builtin.toFixed(0)} ms, flux-local ${fluxLocal.toFixed(0)} ms, ` +
        `ratio ${(fluxLocal / builtin).toFixed(2)}`,
    );
  }
  rmSync(repo, { recursive: true, force: true });
}

await main();
