/**
 * Burst benchmark: Renovate opens many PRs on one base at once. A real `fluxlens serve`
 * and one or two `fluxlens worker` processes on a real Redis, the GitHub emulator and a git
 * server holding the benchmark fleet; 20 signed `pull_request` `opened` deliveries (GitHub's
 * own example payload), each PR a different one-line change on the same base, all sent at
 * once. Measured per configuration, each from an empty cache: the time from the first
 * delivery until every PR's check run is complete, how many reviews rendered the base
 * (instead of reading it back whole), the builds run, and each worker's peak memory.
 * Target (issue #22): the base rendered once; two workers in <= 0.6x the time of one.
 * `npm run bench:burst -- --help`; exits 1 when a target is missed, 2 when the run fails.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as prettier from 'prettier';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { reviewed } from '../test/support/fault-checks.js';
import {
  PULL,
  pullRequestPayload,
  startServiceWorld,
  type ServiceProcess,
  worldPull,
} from '../test/support/service.js';
import { git } from './render/write-fleet.js';
import { ROOT, TOOL_PATH } from './render/tools.js';
import { burstFleet, type BurstFleet } from './service/burst-fleet.js';
import {
  baseRenders,
  mib,
  reviewFigures,
  samplePeaks,
  sum,
  type PeakMemory,
} from './service/worker-figures.js';
import { benchFlags, reportMissed, runBench } from './support/harness.js';

const OPTIONS = {
  prs: ['20', 'PRs opened at once, each a one-line change of another app on the same base'],
  kustomizations: ['40', "the fleet's Flux Kustomizations"],
  releases: ['10', "the fleet's HelmReleases"],
  seed: ['1', "the fleet's seed"],
  configs: ['1,2', 'configurations: N workers sharing a cache folder, or N-own (one each)'],
  concurrency: ['1', 'reviews one worker runs at once (FLUXLENS_WORKER_CONCURRENCY)'],
  'builds-at-once': ['2', 'builds one review runs at once (FLUXLENS_CONCURRENCY)'],
  'timeout-seconds': ['1800', 'how long to wait for the last check run'],
  out: ['bench/results', 'where burst.md and burst.json go'],
} as const;
const { help, flag, usage } = benchFlags(OPTIONS, 'npm run bench:burst -- [options]');
const num = (name: keyof typeof OPTIONS): number => Number(flag(name));
const TARGET_RATIO = 0.6;

interface Config {
  name: string;
  workers: number;
  sharedCache: boolean;
}

interface ConfigFigures extends Config {
  seconds: number;
  reviews: number;
  baseRenders: number;
  buildsRun: number;
  rendersKept: number;
  /** Reviews each worker ran. */
  perWorker: number[];
  peaks: PeakMemory[];
  load: { start: number[]; end: number[] };
}

function parseConfig(text: string): Config {
  const match = /^(\d+)(-own)?$/.exec(text.trim());
  if (!match) throw new Error(`--configs: '${text}' is neither N nor N-own`);
  const workers = Number(match[1]);
  const sharedCache = match[2] === undefined;
  const name = `${workers} worker${workers === 1 ? '' : 's'}${sharedCache || workers === 1 ? '' : ', a cache folder each'}`;
  return { name, workers, sharedCache };
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const load = () => loadavg().map(round2);

async function runConfig(fleet: BurstFleet, config: Config): Promise<ConfigFigures> {
  const prs = num('prs');
  const world = await startServiceWorld(fleet.files, { redis: true, heads: prs });
  try {
    const env = {
      PATH: TOOL_PATH,
      FLUXLENS_WORKER_CONCURRENCY: flag('concurrency'),
      FLUXLENS_CONCURRENCY: flag('builds-at-once'),
      FLUXLENS_WORKER_LOCK_SECONDS: '30',
      // The fleet's charts are served on loopback, which the service refuses by default.
      FLUXLENS_CHART_PRIVATE_ADDRESSES: 'allow',
    };
    await world.start('serve', env);
    const workers: ServiceProcess[] = [];
    for (let i = 0; i < config.workers; i++) {
      const cache = config.sharedCache ? {} : { FLUXLENS_CACHE_DIR: join(world.cacheDir, `w${i}`) };
      workers.push(await world.start('worker', { ...env, ...cache }));
    }
    const heads = Array.from({ length: prs }, (_, i) => world.pushHead(i, PULL + i));
    const peaks = samplePeaks(workers.map((w) => w.pid));
    const loadStart = load();
    const started = performance.now();
    const answers = await Promise.all(
      heads.map((sha, i) =>
        world.deliver('pull_request', pullRequestPayload('opened', sha, worldPull(PULL + i))),
      ),
    );
    const refused = answers.filter((a) => a.status !== 202);
    if (refused.length > 0) throw new Error(`deliveries answered ${refused[0]?.status}`);
    const timeout = num('timeout-seconds') * 1000;
    await Promise.all(heads.map((sha) => reviewed(world, sha, timeout)));
    const seconds = (performance.now() - started) / 1000;
    const loadEnd = load();
    const reviews = reviewFigures(workers);
    return {
      ...config,
      seconds,
      reviews: reviews.length,
      baseRenders: baseRenders(reviews),
      buildsRun: sum(reviews, 'builds-run'),
      rendersKept: sum(reviews, 'renders-kept'),
      perWorker: workers.map((_, i) => reviews.filter((r) => r.worker === i).length),
      peaks: peaks.stop(),
      load: { start: loadStart, end: loadEnd },
    };
  } finally {
    await world.close();
  }
}

function markdown(figures: ConfigFigures[], facts: Record<string, unknown>): string {
  const rows = figures.map((f) =>
    [
      f.name,
      `${f.seconds.toFixed(1)} s`,
      `${(f.seconds / (figures[0]?.seconds ?? f.seconds)).toFixed(2)}x`,
      `${f.baseRenders} of ${f.reviews}`,
      String(f.buildsRun),
      f.perWorker.join(' / '),
      f.peaks.map((p) => `${mib(p.processBytes)} (${mib(p.treeBytes)})`).join(' / '),
      `${f.load.start[0]} -> ${f.load.end[0]}`,
    ].join(' | '),
  );
  return [
    `# Burst: ${String(facts['prs'])} PRs opened at once on one base`,
    '',
    `${String(facts['machine'])}; fleet of ${String(facts['kustomizations'])} Kustomizations and ${String(facts['releases'])} HelmReleases (seed ${String(facts['seed'])}), each worker ${String(facts['concurrency'])} review(s) at once; fluxlens ${String(facts['commit'])}.`,
    '',
    '| configuration | all checks complete | against one worker | reviews that rendered the base | builds run | reviews per worker | peak MiB per worker (with its tools) | 1-min load start -> end |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r} |`),
    '',
  ].join('\n');
}

async function main(): Promise<number> {
  if (help) return (console.log(usage), 0);
  const configs = flag('configs').split(',').map(parseConfig);
  const fleet = await burstFleet({
    kustomizations: num('kustomizations'),
    releases: num('releases'),
    seed: num('seed'),
    heads: num('prs'),
  });
  const figures: ConfigFigures[] = [];
  try {
    for (const config of configs) {
      console.error(`${config.name}: ${num('prs')} PRs...`);
      const f = await runConfig(fleet, config);
      console.error(
        `  ${f.seconds.toFixed(1)} s, base rendered by ${f.baseRenders} of ${f.reviews} reviews, load ${f.load.start[0]} -> ${f.load.end[0]}`,
      );
      figures.push(f);
    }
  } finally {
    await fleet.close();
  }
  const commit = git(ROOT, 'rev-parse', '--short=10', 'HEAD');
  const dirty = git(ROOT, 'status', '--porcelain', '--untracked-files=no') !== '';
  const facts = {
    prs: num('prs'),
    kustomizations: num('kustomizations'),
    releases: num('releases'),
    seed: num('seed'),
    concurrency: num('concurrency'),
    buildsAtOnce: num('builds-at-once'),
    machine: `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'})`,
    commit: `${commit}${dirty ? ' with uncommitted changes' : ''}`,
    node: process.version,
  };
  const out = resolve(flag('out'));
  mkdirSync(out, { recursive: true });
  // Formatted as the repository's Markdown is, so that the results pass the lint.
  const text = await prettier.format(markdown(figures, facts), { parser: 'markdown' });
  writeFileSync(join(out, 'burst.md'), text);
  const json = await prettier.format(JSON.stringify({ facts, figures }), { parser: 'json' });
  writeFileSync(join(out, 'burst.json'), json);
  console.log(text);
  const missed: string[] = [];
  for (const f of figures) {
    // Workers with a cache folder each cannot read each other's renders: once per worker.
    const once = f.sharedCache ? 1 : f.workers;
    if (f.baseRenders > once)
      missed.push(`${f.name}: the base was rendered by ${f.baseRenders} reviews (at most ${once})`);
  }
  const one = figures.find((f) => f.workers === 1);
  for (const f of figures.filter((g) => g.workers === 2 && g.sharedCache)) {
    const ratio = one ? f.seconds / one.seconds : undefined;
    if (ratio !== undefined && ratio > TARGET_RATIO)
      missed.push(
        `${f.name}: ${ratio.toFixed(2)}x the time of one worker (target ${TARGET_RATIO})`,
      );
  }
  return reportMissed(missed);
}

await runBench(main);
