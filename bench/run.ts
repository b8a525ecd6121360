/**
 * Render benchmark: fluxlens's CLI against flate and flux-local (when installed) on a
 * synthetic Flux repository generated from a seed (and on real repositories when
 * FLUXLENS_BENCH_REPOS names a folder of them), through five scenarios: a cold full
 * render, a one-file PR with the base warm, a shared-component fan-out, a chart bump and
 * a no-op re-push. Contestants alternate within each run; medians, ratios and the peak
 * memory of each process tree go to bench/results/latest.md and latest.json, with the
 * targets of issue #12 judged as PASS or MISS. `npm run bench -- --help`; exits 0 when
 * every target passes, 1 when one is missed, 2 when the run itself fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Installed } from './render/commands.js';
import { describeMachine, finishMachine } from './render/machine.js';
import { killRunning } from './render/measure.js';
import { parseOptions, USAGE, type BenchOptions } from './render/options.js';
import { renderMarkdown, writeResults, type Results } from './render/report.js';
import { runScenario, type Row } from './render/run-scenario.js';
import { ScenarioBuilder } from './render/scenarios.js';
import { realSubjects, syntheticSubject, type Subject } from './render/subjects.js';
import { judge } from './render/targets.js';
import { buildFluxlens, findTool, fluxlensFromSources, TOOL_PATH } from './render/tools.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Every scenario of every subject, in order; each scenario alternates its contestants. */
async function runSubjects(
  subjects: readonly Subject[],
  options: BenchOptions,
  tools: Installed,
  work: string,
): Promise<Row[]> {
  const profile = options.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', resolve(options.cpuProf)] : [];
  const scenarioOptions = { nodeFlags: profile, fluxLocalRuns: options.fluxLocalRuns, log };
  const rows: Row[] = [];
  for (const subject of subjects) {
    log(`${subject.name}: ${subject.entry}`);
    const builder = new ScenarioBuilder(subject, work, tools, scenarioOptions);
    for (const name of options.scenarios) {
      const scenario = builder.build(name);
      if (scenario) rows.push(...(await runScenario(subject.name, scenario, options.runs, log)));
    }
  }
  return rows;
}

async function bench(options: BenchOptions, work: string): Promise<number> {
  const startedAt = new Date().toISOString();
  log(
    options.tsx ? 'fluxlens runs from the sources (tsx)' : `building fluxlens into ${options.dist}`,
  );
  const launcher = options.tsx ? fluxlensFromSources() : buildFluxlens(options.dist, log);
  const machine = describeMachine(launcher.describe);
  const tools: Installed = {
    fluxlens: launcher,
    flate: options.peers.includes('flate') ? findTool('flate') : undefined,
    fluxLocal: options.peers.includes('flux-local') ? findTool('flux-local') : undefined,
  };
  log(
    `generating the fleet (${options.kustomizations} Kustomizations, ${options.releases} HelmReleases, seed ${options.seed})`,
  );
  const env = { ...process.env, PATH: TOOL_PATH, HOME: join(work, 'home') };
  const { subject: fleet, charts } = await syntheticSubject(work, options, env);
  try {
    const reposDir = process.env['FLUXLENS_BENCH_REPOS'];
    const subjects: Subject[] = [
      fleet,
      ...(reposDir ? realSubjects(resolve(reposDir), work, log) : []),
    ];
    const rows = await runSubjects(subjects, options, tools, work);
    log(`chart downloads from the loopback repository: ${charts.downloads()}`);
    finishMachine(machine);
    const results: Results = {
      startedAt,
      finishedAt: new Date().toISOString(),
      options: { ...options, peers: options.peers.join(',') },
      machine,
      subjects: subjects.map((s) => ({ name: s.name, entry: s.entry, facts: s.facts })),
      rows,
      targets: judge(rows.filter((r) => r.subject === fleet.name)),
    };
    const files = await writeResults(resolve(options.out), results);
    process.stdout.write(renderMarkdown(results));
    log(`\nwritten: ${files.markdown}, ${files.json}`);
    for (const t of results.targets) log(`${t.verdict.padEnd(4)} ${t.statement}: ${t.figures}`);
    return results.targets.some((t) => t.verdict === 'MISS') ? 1 : 0;
  } finally {
    await charts.close();
  }
}

async function main(): Promise<number> {
  let options: BenchOptions | undefined;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    log(`bench: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return 2;
  }
  if (options === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-bench-'));
  const keep = options.keep;
  const cleanup = () =>
    keep ? log(`work folder kept: ${work}`) : rmSync(work, { recursive: true, force: true });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killRunning();
      cleanup();
      process.exit(130);
    });
  }
  try {
    return await bench(options, work);
  } catch (err) {
    log(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return 2;
  } finally {
    cleanup();
  }
}

process.exitCode = await main();
