/**
 * Memory on a repository-wide PR (issue #22, point 6): the peak resident memory of a
 * `fluxlens worker` reviewing a PR that adds a value to every HelmRelease of the benchmark
 * fleet, against `fluxlens diff` of the same PR in a clone, both with the base already
 * rendered: the worker reviewed a one-line PR of the same base first (then goes on, or is
 * restarted on the same cache folder), the CLI rendered the base first. Both run from the
 * sources through tsx; the worker loads the service's modules, the CLI only its own. Peaks
 * are of the process alone and with the tools it runs (git, kustomize, helm), from /proc.
 * `node --import tsx bench/worker-memory.ts --help`; exits 2 when the run fails.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as prettier from 'prettier';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { reviewed } from '../test/support/fault-checks.js';
import {
  OWNER,
  PULL,
  pullRequestPayload,
  REPO,
  freePort,
  startServiceWorld,
  worldPull,
  type ServiceWorld,
} from '../test/support/service.js';
import { git } from './render/write-fleet.js';
import { fluxlensFromSources, ROOT, TOOL_PATH } from './render/tools.js';
import { burstFleet } from './service/burst-fleet.js';
import { mib, reviewFigures, samplePeaks, type PeakMemory } from './service/worker-figures.js';
import { benchFlags, onCleanUp, runBench } from './support/harness.js';

const OPTIONS = {
  kustomizations: ['300', "the fleet's Flux Kustomizations"],
  releases: ['100', "the fleet's HelmReleases, every one changed by the PR"],
  seed: ['1', "the fleet's seed"],
  'builds-at-once': ['2', 'builds at once (FLUXLENS_CONCURRENCY), for the worker and the CLI'],
  out: ['bench/results', 'where worker-memory.md and worker-memory.json go'],
} as const;
const { help, flag, usage } = benchFlags(OPTIONS, 'node --import tsx bench/worker-memory.ts');
const num = (name: keyof typeof OPTIONS): number => Number(flag(name));
const round2 = (n: number) => Math.round(n * 100) / 100;

interface Run {
  seconds: number;
  peak: PeakMemory;
  /** The process before the PR's review: what it holds idle. */
  idle?: PeakMemory;
  /** The worker's own heap figures (its /metrics) as it started, idle, and after the PR. */
  heap?: Record<'started' | 'idle' | 'after', HeapFigures>;
  timings: Record<string, number>;
}

type HeapFigures = Record<string, number>;

/** V8's heap and the process's memory as the worker's /metrics says, in MiB. */
async function heapOf(port: number): Promise<HeapFigures> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const names = [
    'process_resident_memory_bytes',
    'nodejs_heap_size_used_bytes',
    'nodejs_heap_size_total_bytes',
    'nodejs_external_memory_bytes',
  ];
  return Object.fromEntries(
    names.map((name) => {
      const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
      return [name.replace(/^(process|nodejs)_|_bytes$/g, ''), mib(Number(value ?? 0))];
    }),
  );
}

/**
 * The worker: a one-line PR first (the base rendered), then the repository-wide PR, by the
 * same process or (`restart`) by a new one on the same cache folder.
 */
async function workerRun(world: ServiceWorld, restart: boolean): Promise<Run> {
  // The fleet's charts are served on loopback, which the service refuses by default.
  const env = {
    PATH: TOOL_PATH,
    FLUXLENS_WORKER_CONCURRENCY: '1',
    FLUXLENS_CHART_PRIVATE_ADDRESSES: 'allow',
  };
  await world.start('serve', { ...env, FLUXLENS_CONCURRENCY: flag('builds-at-once') });
  const startWorker = async () => {
    const port = await freePort();
    const worker = await world.start('worker', {
      ...env,
      FLUXLENS_CONCURRENCY: flag('builds-at-once'),
      FLUXLENS_METRICS_PORT: String(port),
    });
    return { worker, port, started: await heapOf(port) };
  };
  let { worker, port, started } = await startWorker();
  const review = async (head: number) => {
    const sha = world.pushHead(head, PULL + head);
    const payload = pullRequestPayload('opened', sha, worldPull(PULL + head));
    await world.deliver('pull_request', payload);
    await reviewed(world, sha, 1_800_000);
  };
  await review(0);
  if (restart) {
    worker.kill('SIGTERM');
    await worker.exited;
    ({ worker, port, started } = await startWorker());
  }
  const idle = samplePeaks([worker.pid]).stop()[0];
  const idleHeap = await heapOf(port);
  const sampler = samplePeaks([worker.pid]);
  const start = performance.now();
  await review(1);
  const seconds = (performance.now() - start) / 1000;
  const [peak] = sampler.stop();
  const after = await heapOf(port);
  const timings = reviewFigures([worker]).at(-1)?.timings ?? {};
  if (peak === undefined || idle === undefined) throw new Error('the worker was not sampled');
  return { seconds, peak, idle, heap: { started, idle: idleHeap, after }, timings };
}

/** `fluxlens diff` of the same PR in a clone of the worker's mirror, the base rendered first. */
async function cliRun(world: ServiceWorld): Promise<Run> {
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-memory-cli-'));
  onCleanUp(() => rmSync(work, { recursive: true, force: true }));
  const mirror = join(world.cacheDir, 'mirrors', OWNER, `${REPO}.git`);
  const clone = join(work, 'repo');
  execFileSync('git', ['clone', '-q', mirror, clone], { stdio: 'pipe' });
  const { base, heads } = world.revisions;
  const head = heads[1] ?? '';
  execFileSync('git', ['-C', clone, 'fetch', '-q', mirror, head], { stdio: 'pipe' });
  const env = {
    PATH: TOOL_PATH,
    HOME: work,
    FLUXLENS_CACHE_DIR: join(work, 'cache'),
    FLUXLENS_CONCURRENCY: flag('builds-at-once'),
  };
  await fluxlens(['render', '--repo', '.', '--rev', base, '--path', 'clusters/prod'], clone, env);
  const report = join(work, 'report.json');
  const args = ['diff', '--base', base, '--head', head, '--path', 'clusters/prod'];
  const run = await fluxlens([...args, '--format', 'json', '--output', report], clone, env);
  const parsed = JSON.parse(readFileSync(report, 'utf8')) as { timings?: Record<string, number> };
  return { ...run, timings: parsed.timings ?? {} };
}

/** The CLI alone from the sources (what bin/fluxlens.js runs for it, through tsx). */
async function fluxlens(args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [...fluxlensFromSources().prefix, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout.resume();
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const sampler = samplePeaks([child.pid ?? 0]);
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  const seconds = (performance.now() - started) / 1000;
  const [peak] = sampler.stop();
  // diff exits 1 when the gate fails the PR; anything above is a failed run.
  if (code === null || code > 1) throw new Error(`fluxlens ${args[0]} exited ${code}:\n${err}`);
  if (err !== '') console.error(err.trim());
  return { seconds, peak: peak ?? { processBytes: 0, treeBytes: 0 }, timings: {} };
}

async function main(): Promise<number> {
  if (help) return (console.log(usage), 0);
  const fleet = await burstFleet({
    kustomizations: num('kustomizations'),
    releases: num('releases'),
    seed: num('seed'),
    heads: 1,
  });
  onCleanUp(() => fleet.close());
  const loadStart = loadavg().map(round2);
  const world = await startServiceWorld(fleet.files, { redis: true, heads: 2 });
  onCleanUp(() => world.close());
  console.error('worker: a one-line PR, then the repository-wide PR...');
  const worker = await workerRun(world, false);
  console.error('CLI: the base rendered, then the repository-wide diff...');
  const cli = await cliRun(world);
  await world.close();
  const again = await startServiceWorld(fleet.files, { redis: true, heads: 2 });
  onCleanUp(() => again.close());
  console.error('worker: a one-line PR, restarted, then the repository-wide PR...');
  const restarted = await workerRun(again, true);
  const loadEnd = loadavg().map(round2);
  const commit = git(ROOT, 'rev-parse', '--short=10', 'HEAD');
  const dirty = git(ROOT, 'status', '--porcelain', '--untracked-files=no') !== '';
  const facts = {
    kustomizations: num('kustomizations'),
    releases: num('releases'),
    seed: num('seed'),
    buildsAtOnce: num('builds-at-once'),
    machine: `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'})`,
    load: { start: loadStart, end: loadEnd },
    commit: `${commit}${dirty ? ' with uncommitted changes' : ''}`,
    node: process.version,
  };
  const row = (name: string, r: Run) =>
    `| ${name} | ${r.seconds.toFixed(1)} s | ${mib(r.peak.processBytes)} | ${mib(r.peak.treeBytes)} | ${r.idle ? mib(r.idle.processBytes) : 'n/a'} | ${r.timings['builds-run'] ?? '?'} / ${r.timings['renders-kept'] ?? '?'} |`;
  const raw = [
    `# Memory on a repository-wide PR`,
    '',
    `${facts.machine}, 1-minute load average ${loadStart[0]} at the start and ${loadEnd[0]} at the end; fleet of ${facts.kustomizations} Kustomizations and ${facts.releases} HelmReleases (seed ${facts.seed}), the PR adds a value to every HelmRelease; ${facts.buildsAtOnce} builds at once; fluxlens ${facts.commit}, ${facts.node}, both from the sources through tsx (the worker loads the service's modules, the CLI only its own).`,
    '',
    '| process | review | peak MiB, process | peak MiB, with its tools | MiB before the review | builds run / renders kept |',
    '| --- | --- | --- | --- | --- | --- |',
    row('`fluxlens worker`', worker),
    row('`fluxlens worker`, restarted after the one-line PR', restarted),
    row('`fluxlens diff`', cli),
    '',
    "The worker's own figures from its `/metrics` (MiB): resident, V8 heap used and total, external.",
    '',
    '| worker | when | resident | heap used | heap total | external |',
    '| --- | --- | --- | --- | --- | --- |',
    ...[['the same process', worker] as const, ['restarted', restarted] as const].flatMap(
      ([name, run]) =>
        Object.entries(run.heap ?? {}).map(
          ([when, h]) =>
            `| ${name} | ${when} | ${h['resident_memory']} | ${h['heap_size_used']} | ${h['heap_size_total']} | ${h['external_memory']} |`,
        ),
    ),
    '',
  ].join('\n');
  // Formatted as the repository's Markdown is, so that the results pass the lint.
  const text = await prettier.format(raw, { parser: 'markdown' });
  const out = resolve(flag('out'));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'worker-memory.md'), text);
  const json = JSON.stringify({ facts, worker, restarted, cli });
  writeFileSync(join(out, 'worker-memory.json'), await prettier.format(json, { parser: 'json' }));
  console.log(text);
  return 0;
}

await runBench(main);
