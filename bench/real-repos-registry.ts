/**
 * fluxlens against flate's changed-only diff on a real repository, in two registry modes
 * (issue #22): `reachable`, every OCI chart the repository references served as a stub of
 * the same name and version by a local registry, and `unreachable`, the same sources on a
 * loopback port nothing listens on. The URLs are rewritten in a scratch clone's commits
 * (bench/registry/commits.ts), so both tools read the same charts. Scenarios, each with the
 * base warm for both tools: one-file (the PR plus a comment line, a head never seen), no-op
 * (the same diff again), shared-component (a label on one component file), every-release
 * (a value added to every HelmRelease). No network: the clone is local, the charts are made
 * here. flux-local, when installed, is a third contestant in the scenarios `--flux-local`
 * names: it has no cache and renders both trees whole (`diff ks`, then `diff hr`), so it runs
 * once per scenario and its time is the sum of both. Writes
 * bench/results/real-repos-registry/<repository>.md and .json (the clone's folder name).
 * Exit code 0: the run finished (targets are read from the table); 2: it failed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import * as prettier from 'prettier';
import { freePort, startOciRegistry } from '../test/support/oci-registry.js';
import { makeTestCertificate } from '../test/support/tls.js';
import { serveBothSchemes } from './registry/both-schemes.js';
import {
  everyReleaseHead,
  git,
  onePrHead,
  sharedComponentHead,
  withRegistry,
} from './registry/commits.js';
import { summarizeFlate } from './real-repos-read.js';
import { chartRefs, pushStubCharts } from './registry/stub-charts.js';
import { describeMachine, finishMachine } from './render/machine.js';
import { measure, type Command } from './render/measure.js';
import { buildFluxlens, DEFAULT_DIST, findTool, TOOL_PATH, TOOLS_BIN } from './render/tools.js';
import { benchFlags, onCleanUp, runBench } from './support/harness.js';

const FLAGS = benchFlags(
  {
    repo: [
      process.env['FLUXLENS_BENCH_REPO'],
      'the repository (a git folder; or FLUXLENS_BENCH_REPO)',
    ],
    entry: ['kubernetes/flux/cluster', "the cluster's entry folder"],
    pr: [undefined, 'the one-file PR: a commit whose first parent is the base'],
    component: [undefined, 'a component file many Kustomizations use (shared-component)'],
    modes: ['reachable,unreachable', 'registry modes to run'],
    runs: ['1', 'timed runs of each tool per scenario'],
    'flux-local': [
      'one-file',
      'scenarios flux-local runs in (comma list, or none); skipped when it is not installed',
    ],
    out: [
      join(import.meta.dirname, 'results', 'real-repos-registry'),
      "where <repository>.md and .json go (the clone's folder name)",
    ],
    dist: [DEFAULT_DIST, "where fluxlens's CLI bundle is built"],
    keep: ['no', '`yes` keeps the work folder (clone, outputs, caches) and prints its path'],
  },
  'node --import tsx bench/real-repos-registry.ts --repo DIR --pr COMMIT --component FILE [options]',
);

type Mode = 'reachable' | 'unreachable';
type Tool = 'fluxlens' | 'flate' | 'flux-local';
const SCENARIOS = ['one-file', 'no-op', 'shared-component', 'every-release'] as const;
type Scenario = (typeof SCENARIOS)[number];

interface Sample {
  mode: Mode;
  scenario: Scenario;
  tool: Tool;
  run: number;
  ms: number;
  peakMiB: number;
  exitCode: number | null;
  timings?: Record<string, number>;
  /** Objects added, changed and removed, as the tool's own report counts them. */
  objects?: { added: number; changed: number; removed: number };
  /** fluxlens: render errors at head; flate: reconcile failures of either side. */
  renderErrors?: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Context {
  clone: string;
  work: string;
  entry: string;
  env: Record<string, string>;
  fluxlens: string[];
  flate: string;
  /** The certificate flate is to trust for the registry's TLS side. */
  caFile?: string;
  fluxLocal?: { file: string; scenarios: Set<Scenario> };
}

function fluxlensCommand(ctx: Context, cache: string, args: string[], out: string): Command {
  const env = { ...ctx.env, FLUXLENS_CACHE_DIR: cache, FLUXLENS_TOOLS_DIR: dirname(TOOLS_BIN) };
  return {
    file: process.execPath,
    args: [...ctx.fluxlens, ...args],
    cwd: ctx.clone,
    env,
    stdout: out,
  };
}

/** flate reads the work tree: `rev` is checked out first. */
function flateCommand(ctx: Context, cache: string, rev: string, args: string[], out: string) {
  git(ctx.clone, 'checkout', '-q', '--force', '--detach', rev);
  const common = [
    '--path',
    ctx.entry,
    '--no-progress',
    '--log-level',
    'error',
    '--cache-dir',
    cache,
  ];
  const env: Record<string, string> = {
    ...ctx.env,
    XDG_CACHE_HOME: join(ctx.env['HOME'] ?? cache, '.cache'),
  };
  if (ctx.caFile !== undefined) env['SSL_CERT_FILE'] = ctx.caFile;
  const command: Command = {
    file: ctx.flate,
    args: [...args, ...common],
    cwd: ctx.clone,
    env,
    stdout: out,
  };
  return command;
}

/**
 * flux-local's review of a head: the Kustomizations' diff, then the HelmReleases', each
 * from the head's work tree against the base's (a second work tree, `baseTree`). One
 * measurement: the times add up, the peak is the larger; it finishes only if both do.
 */
async function measureFluxLocal(
  ctx: Context,
  file: string,
  head: string,
  baseTree: string,
  out: string,
): Promise<{ ms: number; peakBytes: number; exitCode: number | null; stderrTail: string }> {
  git(ctx.clone, 'checkout', '-q', '--force', '--detach', head);
  const env: Record<string, string> = { ...ctx.env };
  // helm, run by flux-local, trusts the registry's TLS side the way flate does.
  if (ctx.caFile !== undefined) env['SSL_CERT_FILE'] = ctx.caFile;
  let total = { ms: 0, peakBytes: 0, exitCode: 0 as number | null, stderrTail: '' };
  for (const what of ['ks', 'hr']) {
    const args = [
      'diff',
      what,
      '-A',
      '--path',
      ctx.entry,
      '--path-orig',
      join(baseTree, ctx.entry),
    ];
    const m = await measure({ file, args, cwd: ctx.clone, env, stdout: `${out}-${what}` });
    total = {
      ms: total.ms + m.ms,
      peakBytes: Math.max(total.peakBytes, m.peakBytes),
      exitCode: total.exitCode === 0 ? m.exitCode : total.exitCode,
      stderrTail: m.exitCode === 0 ? total.stderrTail : m.stderrTail,
    };
  }
  return total;
}

/** Fills both tools' caches from the base, untimed. */
async function warm(
  ctx: Context,
  caches: Record<'fluxlens' | 'flate', string>,
  base: string,
  mode: Mode,
) {
  const out = join(ctx.work, 'out', `${mode}-warm`);
  const render = ['render', '--repo', ctx.clone, '--rev', base, '--path', ctx.entry];
  const f = await measure(fluxlensCommand(ctx, caches.fluxlens, render, `${out}-fluxlens`));
  const g = await measure(flateCommand(ctx, caches.flate, base, ['build', 'all'], `${out}-flate`));
  log(
    `  warm: fluxlens ${(f.ms / 1000).toFixed(1)} s (exit ${f.exitCode}), flate ${(g.ms / 1000).toFixed(1)} s (exit ${g.exitCode})`,
  );
}

async function timed(
  ctx: Context,
  caches: Record<'fluxlens' | 'flate', string>,
  at: {
    mode: Mode;
    scenario: Scenario;
    run: number;
    base: string;
    head: string;
    baseTree?: string;
  },
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const order: Tool[] = at.run % 2 === 0 ? ['fluxlens', 'flate'] : ['flate', 'fluxlens'];
  const fluxLocal = ctx.fluxLocal;
  if (fluxLocal?.scenarios.has(at.scenario) && at.run === 0) order.push('flux-local');
  for (const tool of order) {
    const out = join(ctx.work, 'out', `${at.mode}-${at.scenario}-${at.run}-${tool}`);
    if (tool === 'flux-local') {
      if (fluxLocal === undefined || at.baseTree === undefined) continue;
      const m = await measureFluxLocal(ctx, fluxLocal.file, at.head, at.baseTree, out);
      samples.push({
        mode: at.mode,
        scenario: at.scenario,
        tool,
        run: at.run,
        ms: Math.round(m.ms),
        peakMiB: Math.round(m.peakBytes / 2 ** 20),
        exitCode: m.exitCode,
      });
      const how = m.exitCode === 0 ? '' : `, did not finish: ${m.stderrTail.split('\n').at(-1)}`;
      log(`  ${at.scenario} flux-local: ${(m.ms / 1000).toFixed(2)} s (exit ${m.exitCode}${how})`);
      continue;
    }
    const report = `${out}.json`;
    const command =
      tool === 'fluxlens'
        ? fluxlensCommand(
            ctx,
            caches.fluxlens,
            [
              'diff',
              '--repo',
              ctx.clone,
              '--base',
              at.base,
              '--head',
              at.head,
              '--path',
              ctx.entry,
              '--format',
              'json',
              '--fail-on',
              'never',
              '--output',
              report,
            ],
            out,
          )
        : flateCommand(
            ctx,
            caches.flate,
            at.head,
            ['diff', 'all', '--base', at.base, '--output', 'html'],
            out,
          );
    const m = await measure(command);
    const sample: Sample = {
      mode: at.mode,
      scenario: at.scenario,
      tool,
      run: at.run,
      ms: Math.round(m.ms),
      peakMiB: Math.round(m.peakBytes / 2 ** 20),
      exitCode: m.exitCode,
    };
    if (tool === 'fluxlens') {
      try {
        const parsed = JSON.parse(readFileSync(report, 'utf8')) as {
          timings?: Record<string, number>;
          errors?: Array<{ side?: string }>;
          summary?: Record<string, number>;
        };
        if (parsed.timings) sample.timings = parsed.timings;
        const count = (key: string) => parsed.summary?.[key] ?? 0;
        sample.objects = {
          added: count('added'),
          changed: count('changed'),
          removed: count('removed'),
        };
        sample.renderErrors = (parsed.errors ?? []).filter((e) => e.side === 'head').length;
      } catch {
        log(`  fluxlens wrote no report: ${m.stderrTail.split('\n')[0] ?? ''}`);
      }
    }
    if (tool === 'flate' && m.exitCode !== null && m.exitCode <= 1) {
      const flate = summarizeFlate(readFileSync(out, 'utf8'), readFileSync(`${out}.err`, 'utf8'));
      sample.objects = flate.counts;
      sample.renderErrors = Object.values(flate.failures).reduce((n, c) => n + c, 0);
    }
    log(`  ${at.scenario} ${tool}: ${(m.ms / 1000).toFixed(2)} s (exit ${m.exitCode})`);
    samples.push(sample);
  }
  return samples;
}

async function runMode(
  ctx: Context,
  mode: Mode,
  registry: string,
  heads: { base: string; pr: string; component: string; runs: number },
): Promise<Sample[]> {
  log(`${mode}: charts at ${registry}`);
  const base = withRegistry(ctx.clone, heads.base, heads.base, registry);
  const caches = {
    fluxlens: join(ctx.work, 'cache', mode, 'fluxlens'),
    flate: join(ctx.work, 'cache', mode, 'flate'),
  };
  await warm(ctx, caches, base, mode);
  // flux-local compares two work trees: the base's is a second checkout.
  let baseTree: string | undefined;
  if (ctx.fluxLocal !== undefined) {
    baseTree = join(ctx.work, `base-${mode}`);
    git(ctx.clone, 'worktree', 'add', '-q', '--detach', baseTree, base);
  }
  const samples: Sample[] = [];
  for (let run = 0; run < heads.runs; run += 1) {
    const tag = `${mode}-${run}`;
    const onto = (head: string) => withRegistry(ctx.clone, head, base, registry);
    const oneFile = onto(onePrHead(ctx.clone, heads.pr, tag));
    const at = { mode, run, base, ...(baseTree !== undefined ? { baseTree } : {}) };
    samples.push(...(await timed(ctx, caches, { ...at, scenario: 'one-file', head: oneFile })));
    samples.push(...(await timed(ctx, caches, { ...at, scenario: 'no-op', head: oneFile })));
    const shared = onto(sharedComponentHead(ctx.clone, heads.base, heads.component, tag));
    samples.push(
      ...(await timed(ctx, caches, { ...at, scenario: 'shared-component', head: shared })),
    );
    const wide = onto(everyReleaseHead(ctx.clone, heads.base, tag));
    samples.push(...(await timed(ctx, caches, { ...at, scenario: 'every-release', head: wide })));
  }
  return samples;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

const TIMING_KEYS = ['analysis-kept', 'renders-kept', 'render-base', 'render-head', 'diff', 'risk'];

function markdown(samples: Sample[], title: string, machine: ReturnType<typeof describeMachine>) {
  const lines = [
    `# ${title}`,
    '',
    `${machine.nproc} cores (${machine.cpu}), load average ${machine.loadStart.join(' / ')} at the start and ${(machine.loadEnd ?? []).join(' / ')} at the end; fluxlens ${machine.fluxlens.commit.slice(0, 10)}${machine.fluxlens.uncommittedChanges ? ' with uncommitted changes' : ''}, flate ${(machine.versions['flate'] ?? '?').replace(/^flate version /, '')}, helm ${machine.versions['helm'] ?? '?'}.`,
    '',
    `| mode | scenario | fluxlens | flate | ratio | flux-local | ratio | fluxlens ${TIMING_KEYS.join(' / ')} | objects +/~/- fluxlens; flate | render errors fluxlens; flate | peak MiB fluxlens / flate / flux-local |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const modes = [...new Set(samples.map((s) => s.mode))];
  for (const mode of modes) {
    for (const scenario of SCENARIOS) {
      const of = (tool: Tool) =>
        samples.filter((s) => s.mode === mode && s.scenario === scenario && s.tool === tool);
      const f = of('fluxlens');
      const g = of('flate');
      if (f.length === 0) continue;
      const fm = median(f.map((s) => s.ms));
      const gm = median(g.map((s) => s.ms));
      const t = TIMING_KEYS.map((k) => {
        const values = f.flatMap((s) => (s.timings?.[k] === undefined ? [] : [s.timings[k]]));
        return values.length === 0 ? 'n/a' : String(Math.round(median(values)));
      }).join(' / ');
      const objects = (list: Sample[]) =>
        list
          .map((s) =>
            s.objects ? `${s.objects.added}/${s.objects.changed}/${s.objects.removed}` : 'n/a',
          )
          .join(', ');
      const errorsOf = (list: Sample[]) => list.map((s) => s.renderErrors ?? 'n/a').join(', ');
      const errors = `${errorsOf(f)}; ${errorsOf(g)}`;
      // flux-local's figure counts only when both of its diffs finished.
      const l = of('flux-local');
      const lDone = l.filter((s) => s.exitCode === 0);
      const lm = median(lDone.map((s) => s.ms));
      const lCell =
        l.length === 0
          ? 'not run'
          : lDone.length === 0
            ? `did not finish (exit ${l.map((s) => s.exitCode).join(', ')})`
            : `${(lm / 1000).toFixed(2)} s`;
      const lPeak = lDone.length === 0 ? 'n/a' : String(median(lDone.map((s) => s.peakMiB)));
      const peak = `${median(f.map((s) => s.peakMiB))} / ${median(g.map((s) => s.peakMiB))} / ${lPeak}`;
      const ratioTo = (peer: number) => (peer > 0 ? `${(fm / peer).toFixed(2)}x` : 'n/a');
      lines.push(
        `| ${mode} | ${scenario} | ${(fm / 1000).toFixed(2)} s | ${(gm / 1000).toFixed(2)} s | ${ratioTo(gm)} | ${lCell} | ${lDone.length > 0 ? ratioTo(lm) : 'n/a'} | ${t} | ${objects(f)}; ${objects(g)} | ${errors} | ${peak} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<number> {
  if (FLAGS.help) {
    console.log(FLAGS.usage);
    return 0;
  }
  const source = resolve(FLAGS.flag('repo'));
  const pr = FLAGS.flag('pr');
  const component = FLAGS.flag('component');
  if (FLAGS.flag('repo') === '' || pr === '' || component === '')
    throw new Error(`--repo, --pr and --component are required\n${FLAGS.usage}`);
  const flate = findTool('flate');
  if (flate === undefined) throw new Error('flate is not installed (npm run tools)');
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-registry-bench-'));
  onCleanUp(() =>
    FLAGS.flag('keep') === 'yes'
      ? log(`work folder kept: ${work}`)
      : rmSync(work, { recursive: true, force: true }),
  );
  const home = join(work, 'home');
  const tmp = join(work, 'tmp');
  for (const d of [home, tmp, join(work, 'out')]) mkdirSync(d, { recursive: true });
  const env = { PATH: TOOL_PATH, HOME: home, TMPDIR: tmp, LANG: 'C.UTF-8', NO_COLOR: '1' };
  // Not `owner+name`: flate's kustomize refuses a '+' in a folder name.
  const clone = join(work, basename(source).replace(/\+/g, '--'));
  execFileSync('git', ['clone', '-q', '--no-checkout', source, clone], { stdio: 'pipe' });
  const base = git(clone, 'rev-parse', `${pr}^1`);
  const fullPr = git(clone, 'rev-parse', pr);
  const launcher = buildFluxlens(FLAGS.flag('dist'), log);
  const fluxLocalFile = findTool('flux-local');
  const fluxLocalScenarios = new Set(
    FLAGS.flag('flux-local')
      .split(',')
      .filter((s): s is Scenario => (SCENARIOS as readonly string[]).includes(s)),
  );
  const ctx: Context = {
    clone,
    work,
    entry: FLAGS.flag('entry'),
    env,
    fluxlens: launcher.prefix,
    flate,
    ...(fluxLocalFile !== undefined && fluxLocalScenarios.size > 0
      ? { fluxLocal: { file: fluxLocalFile, scenarios: fluxLocalScenarios } }
      : {}),
  };
  if (fluxLocalFile === undefined) log('flux-local is not installed: it is left out');
  const machine = describeMachine(launcher.describe);
  const registry = await startOciRegistry();
  onCleanUp(() => registry.stop());
  const certificate = makeTestCertificate();
  const front = await serveBothSchemes(registry.host, certificate);
  onCleanUp(() => front.close());
  ctx.caFile = join(work, 'registry-ca.pem');
  writeFileSync(ctx.caFile, certificate.cert);
  const refs = [...chartRefs(clone, base), ...chartRefs(clone, fullPr)];
  log(
    `pushed ${await pushStubCharts(refs, registry.host, work, env)} stub charts to ${registry.host}`,
  );
  const heads = { base, pr: fullPr, component, runs: Number(FLAGS.flag('runs')) };
  const samples: Sample[] = [];
  for (const mode of FLAGS.flag('modes').split(',') as Mode[]) {
    const host = mode === 'reachable' ? front.host : `127.0.0.1:${await freePort()}`;
    samples.push(...(await runMode(ctx, mode, host, heads)));
  }
  finishMachine(machine);
  const name = basename(source);
  const title = `${name}: fluxlens, flate's changed-only diff and flux-local, charts reachable (local stubs) and unreachable`;
  const out = resolve(FLAGS.flag('out'));
  mkdirSync(out, { recursive: true });
  const md = markdown(samples, title, machine);
  const json = {
    repository: name,
    pr: fullPr,
    base,
    entry: ctx.entry,
    component,
    machine,
    samples,
  };
  // Formatted as the repository's prettier settings say: the results are committed.
  for (const [file, text] of [
    [join(out, `${name}.md`), md],
    [join(out, `${name}.json`), JSON.stringify(json)],
  ] as const) {
    const options = (await prettier.resolveConfig(file)) ?? {};
    writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
  }
  process.stdout.write(md);
  return 0;
}

await runBench(main);
