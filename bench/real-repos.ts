/**
 * fluxlens and flate on merged pull requests of public Flux repositories (issue #10): for
 * each case of bench/real-repos-cases.json, the PR's commit against its first parent, from
 * a mirror of the repository in FLUXLENS_REAL_REPOS (default /work/.mirror, one
 * `<owner>+<name>/repo` git folder each). Writes bench/results/real-repos.md and .json
 * with each verdict, the acceptance checks and where the tools disagree on which
 * Kustomizations change. Needs the mirrors, flate, kustomize and helm; charts come from the
 * network, so where there is none they are unavailable, as the checks expect.
 * Exit code 0: no check failed; 1: one did, or a tool failed on a case; 2: the run failed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildAtRevision } from './real-repos-build.js';
import { renderMarkdown, writeResults, type Results } from './real-repos-report.js';
import { caseId, loadCases, runCase, type Case, type CaseResult } from './real-repos-run.js';
import { killRunning } from './render/measure.js';
import {
  buildFluxlens,
  findTool,
  fluxlensFromSources,
  ROOT,
  toolVersion,
  type FluxlensLauncher,
} from './render/tools.js';

const USAGE = `node --import tsx bench/real-repos.ts [options]
  FLUXLENS_REAL_REPOS=DIR  the mirrors, one <owner>+<name>/repo git folder each (/work/.mirror)
  --cases FILE    the cases (bench/real-repos-cases.json)
  --only ID       run only this case (owner/name#PR), or a repository's (owner/name); repeatable.
                  Its results replace that case's in the existing results, the rest are kept
  --out DIR       where real-repos.md and real-repos.json go (bench/results)
  --report        rewrite real-repos.md from real-repos.json and the cases' notes; runs nothing
  --tsx           run fluxlens from the sources through tsx instead of a private build
  --rev REV       build fluxlens from this commit of the checkout instead of its work tree
  --dist DIR      where fluxlens is built ($TMPDIR/fluxlens-real-repos-dist)
  --cache DIR     keep both tools' caches here between runs (default: in the work folder)
  --keep          keep the work folder (clones, outputs, caches) and print its path`;

const log = (line: string) => process.stderr.write(`${line}\n`);
const round = (n: number) => Math.round(n * 100) / 100;

function options(args: string[]) {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      help: { type: 'boolean' },
      cases: { type: 'string', default: join(ROOT, 'bench', 'real-repos-cases.json') },
      only: { type: 'string', multiple: true, default: [] },
      out: { type: 'string', default: join(ROOT, 'bench', 'results') },
      report: { type: 'boolean' },
      tsx: { type: 'boolean' },
      rev: { type: 'string' },
      dist: { type: 'string', default: join(tmpdir(), 'fluxlens-real-repos-dist') },
      cache: { type: 'string' },
      keep: { type: 'boolean' },
    },
  });
  return values;
}

function readResults(file: string): Results | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Results) : undefined;
}

function selected(cases: readonly Case[], only: readonly string[]): Case[] {
  if (only.length === 0) return [...cases];
  const picked = cases.filter((c) => only.includes(caseId(c)) || only.includes(c.repo));
  if (picked.length === 0) throw new Error(`no case matches --only ${only.join(', ')}`);
  return picked;
}

/** The fluxlens a run measures: a build of the work tree, the sources, or a commit's build. */
function fluxlens(
  values: ReturnType<typeof options>,
): Results['fluxlens'] & { run: FluxlensLauncher } {
  if (values.rev !== undefined) {
    log(`building fluxlens at ${values.rev} into ${values.dist}`);
    const { launcher, commit } = buildAtRevision(values.rev, values.dist);
    return { commit, uncommittedChanges: false, launcher: launcher.describe, run: launcher };
  }
  log(
    values.tsx ? 'fluxlens runs from the sources (tsx)' : `building fluxlens into ${values.dist}`,
  );
  const launcher = values.tsx ? fluxlensFromSources() : buildFluxlens(values.dist, log);
  // --no-optional-locks: reading the status must not write the checkout's index.
  const git = (...args: string[]) =>
    execFileSync('git', ['--no-optional-locks', '-C', ROOT, ...args], { encoding: 'utf8' }).trim();
  const status = git('status', '--porcelain', '--untracked-files=no');
  return {
    commit: git('rev-parse', 'HEAD'),
    uncommittedChanges: status !== '',
    launcher: launcher.describe,
    run: launcher,
  };
}

function versions(flate: string): Record<string, string> {
  const version = (name: string, args: string[]) => {
    const file = findTool(name);
    return file === undefined ? 'not installed' : toolVersion(file, args);
  };
  return {
    node: process.version,
    kustomize: version('kustomize', ['version']),
    helm: version('helm', ['version', '--short']),
    flate: toolVersion(flate, ['--version']).replace(/^flate version /, ''),
  };
}

async function runAll(values: ReturnType<typeof options>, cases: Case[], work: string) {
  const flate = findTool('flate');
  if (flate === undefined) throw new Error('flate is not installed (npm run tools)');
  const { run, ...described } = fluxlens(values);
  const startedAt = new Date().toISOString();
  const loadStart = loadavg().map(round);
  const ctx = {
    mirrors: resolve(process.env['FLUXLENS_REAL_REPOS'] ?? '/work/.mirror'),
    work,
    cache: values.cache === undefined ? join(work, 'cache') : resolve(values.cache),
    fluxlens: run,
    flate,
    log,
  };
  const fresh: CaseResult[] = [];
  for (const c of selected(cases, values.only)) fresh.push(await runCase(ctx, c));
  const previous =
    values.only.length > 0 ? readResults(join(values.out, 'real-repos.json')) : undefined;
  const ids = new Set(fresh.map((r) => r.id));
  const kept = (previous?.cases ?? []).filter((r) => !ids.has(r.id));
  const results: Results = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: { nproc: availableParallelism(), loadStart, loadEnd: loadavg().map(round) },
    versions: versions(flate),
    fluxlens: described,
    cases: [...kept, ...fresh],
  };
  return results;
}

/** 1 when a check failed or a tool did not run on a case. */
function exitCode(results: Results): number {
  const bad = results.cases.some(
    (r) =>
      r.fluxlens.run.error !== undefined ||
      r.flate.run.error !== undefined ||
      Object.values(r.checks ?? {}).some((c) => c.status === 'fail'),
  );
  return bad ? 1 : 0;
}

async function main(args: string[]): Promise<number> {
  const values = options(args);
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const cases = loadCases(resolve(values.cases));
  const out = resolve(values.out);
  if (values.report === true) {
    const results = readResults(join(out, 'real-repos.json'));
    if (results === undefined) throw new Error(`no results in ${out} to report on`);
    const files = await writeResults(out, results, cases);
    log(`wrote ${files.markdown}`);
    return exitCode(results);
  }
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-real-repos-'));
  const stop = (signal: NodeJS.Signals) => {
    killRunning();
    if (values.keep !== true) rmSync(work, { recursive: true, force: true });
    log(`stopped by ${signal}`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const results = await runAll({ ...values, out }, cases, work);
    const files = await writeResults(out, results, cases);
    process.stdout.write(`${renderMarkdown(results, cases)}\n`);
    log(`wrote ${files.markdown} and ${files.json}`);
    return exitCode(results);
  } finally {
    if (values.keep === true) log(`work folder kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    log(`real-repos: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 2;
  },
);
