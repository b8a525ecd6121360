/** The render benchmark's options: a table that is both the parser's input and `--help`. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SCENARIOS, type ScenarioName } from './scenarios.js';
import { DEFAULT_DIST } from './tools.js';

const OPTIONS = {
  quick: [undefined, 'a smoke run: 40 Kustomizations, 10 HelmReleases, 3 runs'],
  kustomizations: [
    '300',
    'Flux Kustomizations in the synthetic fleet (flux-system and namespaces included)',
  ],
  releases: ['100', 'HelmReleases in the synthetic fleet'],
  runs: ['5', 'timed runs of every contestant, alternating'],
  'flux-local-runs': [
    undefined,
    'timed runs of flux-local (default: --runs; it is by far the slowest)',
  ],
  seed: ['1', "the fleet's seed"],
  scenario: [undefined, `run only these (repeatable): ${SCENARIOS.join(', ')}`],
  peers: [
    'flate,flux-local',
    'peers to compare with, when installed (comma-separated; "" for none)',
  ],
  dist: [DEFAULT_DIST, "where fluxlens is built (tsc's incremental output; reused across runs)"],
  tsx: [undefined, 'run fluxlens from the sources through tsx instead (adds 1 to 3 s a run)'],
  'cpu-prof': [undefined, 'write V8 CPU profiles of every fluxlens run into this folder'],
  out: ['bench/results', 'where latest.md and latest.json go'],
  keep: [undefined, 'keep the work folder (repositories, caches, outputs) and print its path'],
} satisfies Record<string, [string | undefined, string]>;

const BOOLEAN = new Set(['quick', 'tsx', 'keep']);

export interface BenchOptions {
  kustomizations: number;
  releases: number;
  runs: number;
  fluxLocalRuns: number;
  seed: number;
  scenarios: ScenarioName[];
  peers: string[];
  dist: string;
  tsx: boolean;
  cpuProf: string | undefined;
  out: string;
  keep: boolean;
}

export const USAGE = Object.entries(OPTIONS).reduce(
  (text, [name, [value, doc]]) =>
    `${text}\n  --${name.padEnd(16)} ${doc}${value ? ` (${value})` : ''}`,
  'npm run bench -- [options]   (FLUXLENS_BENCH_REPOS=DIR adds the git repositories in DIR)\n',
);

function integer(name: string, value: string | undefined, min = 1): number {
  const n = Number(value);
  if (value === undefined || value === '' || !Number.isInteger(n) || n < min) {
    throw new Error(`--${name} must be an integer of at least ${min}, got '${value ?? ''}'`);
  }
  return n;
}

/** Parsed options, or undefined when --help asked for the usage. */
export function parseOptions(args: string[]): BenchOptions | undefined {
  const spec: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean' } };
  for (const [name, [value]] of Object.entries(OPTIONS)) {
    if (BOOLEAN.has(name)) spec[name] = { type: 'boolean' };
    else
      spec[name] = {
        type: 'string',
        ...(name === 'scenario' ? { multiple: true } : {}),
        ...(value === undefined ? {} : { default: value }),
      };
  }
  const { values } = parseArgs({ args, options: spec, strict: true, allowPositionals: false });
  if (values['help'] === true) return undefined;
  const text = (name: keyof typeof OPTIONS) => {
    const v = values[name];
    return typeof v === 'string' ? v : undefined;
  };
  const quick = values['quick'] === true;
  const given = (name: string) => args.some((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const runs = quick && !given('runs') ? 3 : integer('runs', text('runs'));
  const scenarios = (values['scenario'] as string[] | undefined) ?? [...SCENARIOS];
  for (const s of scenarios) {
    if (!SCENARIOS.includes(s as ScenarioName))
      throw new Error(`--scenario must be one of ${SCENARIOS.join(', ')}, got '${s}'`);
  }
  return {
    kustomizations:
      quick && !given('kustomizations') ? 40 : integer('kustomizations', text('kustomizations')),
    releases: quick && !given('releases') ? 10 : integer('releases', text('releases')),
    runs,
    fluxLocalRuns:
      text('flux-local-runs') === undefined
        ? runs
        : integer('flux-local-runs', text('flux-local-runs')),
    seed: integer('seed', text('seed'), 0),
    scenarios: scenarios as ScenarioName[],
    peers: (text('peers') ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
    dist: text('dist') ?? DEFAULT_DIST,
    tsx: values['tsx'] === true,
    cpuProf: text('cpu-prof'),
    out: text('out') ?? 'bench/results',
    keep: values['keep'] === true,
  };
}
