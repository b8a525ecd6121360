/**
 * What the CLI costs before it works (issue #22, point 4): `fluxlens --version`, `--help`,
 * `diff --help` (diff's code loaded, its flags parsed, nothing run) and the whole `diff` of
 * the bundled example (scripts/example's repository, `--offline`, its render cache warm),
 * each run as `node bin/fluxlens.js` the way a user runs it, built (`npm run build`) and
 * timed from spawn to exit. Every case runs once untimed first, as a CLI run follows
 * earlier ones: Node's compile cache and fluxlens' caches are warm. The `cold` row turns
 * the compile cache off (NODE_DISABLE_COMPILE_CACHE), as on a first run.
 *
 * `--baseline DIR` times another built checkout (an export of an older commit with
 * node_modules linked and `npm run build` run) in the same rounds, alternating, for
 * ratios, and compares the two reports byte for byte. Prints medians; exits 0, or 2 when a
 * run fails (an exit code other than diff's 0 or 1). No target: the figures go in
 * bench/README.md. `node --import tsx bench/startup.ts --help`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { projectRoot } from '../test/support/paths.js';
import { benchFlags, onCleanUp, reportMissed, runBench } from './support/harness.js';

const OPTIONS = {
  runs: ['20', 'timed runs of each case and checkout'],
  root: [projectRoot, 'the built fluxlens checkout to time'],
  baseline: [undefined, 'a built checkout to compare with (ratios root / baseline)'],
} satisfies Record<string, [string | undefined, string]>;
const { help, flag, usage } = benchFlags(OPTIONS, 'node --import tsx bench/startup.ts [options]');

interface Case {
  name: string;
  args: (repo: string) => string[];
  env?: Record<string, string>;
  /** diff's 1 is its gate (a finding reached failOn), not a failure. */
  gate?: true;
}

const CASES: readonly Case[] = [
  { name: '--version', args: () => ['--version'] },
  { name: '--help', args: () => ['--help'] },
  { name: 'diff --help', args: () => ['diff', '--help'] },
  {
    name: 'diff --help, cold',
    args: () => ['diff', '--help'],
    env: { NODE_DISABLE_COMPILE_CACHE: '1' },
  },
  {
    name: 'diff (example)',
    args: (repo) => [
      'diff',
      '--repo',
      repo,
      '--base',
      'main',
      '--head',
      'podinfo-public',
      '--offline',
    ],
    gate: true,
  },
];

/** One checkout under test: where its bin is, and its own fluxlens cache. */
interface Checkout {
  label: string;
  dir: string;
  cacheDir: string;
}

/** scripts/example's repository: examples/home-cluster on main, the PR's patch on a branch. */
function exampleRepository(work: string): string {
  const repo = join(work, 'home-cluster');
  cpSync(join(projectRoot, 'examples/home-cluster'), repo, { recursive: true });
  const env = {
    PATH: process.env['PATH'] ?? '',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Sam Base',
    GIT_AUTHOR_EMAIL: 'sam@example.org',
    GIT_COMMITTER_NAME: 'Sam Base',
    GIT_COMMITTER_EMAIL: 'sam@example.org',
    GIT_AUTHOR_DATE: '2025-01-06T09:00:00Z',
    GIT_COMMITTER_DATE: '2025-01-07T18:30:00Z',
  };
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '--all');
  git('commit', '--quiet', '--message', 'home cluster: podinfo, redis, whoami, ingress-nginx');
  git('checkout', '--quiet', '-b', 'podinfo-public');
  const patch = join(projectRoot, 'examples/home-cluster-pr.patch');
  git('am', '--quiet', '--committer-date-is-author-date', patch);
  return repo;
}

interface Run {
  ms: number;
  stdout: string;
}

function runOnce(checkout: Checkout, c: Case, repo: string, tmp: string): Run {
  const args = c.args(repo);
  const started = performance.now();
  const child = spawnSync(process.execPath, [join(checkout.dir, 'bin/fluxlens.js'), ...args], {
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? tmpdir(),
      FLUXLENS_CACHE_DIR: checkout.cacheDir,
      // Node's compile cache, where bin/fluxlens.js asks for it, goes in the work folder.
      TMPDIR: tmp,
      ...c.env,
    },
  });
  const ms = performance.now() - started;
  if (child.status !== 0 && !(c.gate && child.status === 1)) {
    throw new Error(
      `${checkout.label}: fluxlens ${args.join(' ')} exited ${child.status}: ${child.stderr}`,
    );
  }
  return { ms, stdout: child.stdout };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function checkoutAt(label: string, dir: string, work: string): Checkout {
  const root = resolve(dir);
  if (!existsSync(join(root, 'dist/cli/index.js'))) {
    throw new Error(`${root} has no dist/cli/index.js: run npm run build there first`);
  }
  return { label, dir: root, cacheDir: join(work, `cache-${label}`) };
}

async function main(): Promise<number> {
  if (help) {
    console.log(usage);
    return 0;
  }
  const runs = Number(flag('runs'));
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-bench-startup-'));
  onCleanUp(() => rmSync(work, { recursive: true, force: true }));
  const repo = exampleRepository(work);
  const tmp = join(work, 'tmp');
  mkdirSync(tmp);
  const checkouts = [checkoutAt('root', flag('root'), work)];
  if (flag('baseline') !== '') checkouts.push(checkoutAt('baseline', flag('baseline'), work));

  const load = loadavg()[0]?.toFixed(1);
  console.log(`${runs} runs of each case and checkout; load average (1 min) at start ${load}`);
  const columns = checkouts.length === 2 ? ['root', 'baseline', 'root / baseline'] : ['root'];
  const widths = columns.map((c) => Math.max(8, c.length));
  const row = (first: string, cells: string[]) =>
    `| ${first.padEnd(17)} | ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 8)).join(' | ')} |`;
  console.log(row('case', columns));
  console.log(
    row(
      '-'.repeat(17),
      widths.map((w) => '-'.repeat(w)),
    ),
  );
  const differ: string[] = [];
  for (const c of CASES) {
    const times = checkouts.map(() => [] as number[]);
    const outputs = checkouts.map((checkout) => runOnce(checkout, c, repo, tmp).stdout);
    if (outputs.length === 2 && outputs[0] !== outputs[1]) differ.push(c.name);
    // Alternating, so that the machine's load weighs on both alike.
    for (let i = 0; i < runs; i++) {
      checkouts.forEach((checkout, k) => times[k]?.push(runOnce(checkout, c, repo, tmp).ms));
    }
    const [root, baseline] = times.map(median);
    const cells = [`${root?.toFixed(0)} ms`];
    if (baseline !== undefined && root !== undefined) {
      cells.push(`${baseline.toFixed(0)} ms`, (root / baseline).toFixed(2));
    }
    console.log(row(c.name, cells));
  }
  console.log(`load average (1 min) at end ${loadavg()[0]?.toFixed(1)}`);
  if (checkouts.length === 2) {
    console.log(
      differ.length === 0
        ? 'root and baseline printed the same, byte for byte'
        : `root and baseline printed differently: ${differ.join(', ')}`,
    );
  }
  return reportMissed([]);
}

await runBench(main);
