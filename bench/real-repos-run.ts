/**
 * One real pull request through both tools: a clone of the repository's mirror with the
 * PR's commit checked out (flate reads the work tree), `fluxlens diff` of the commit against
 * its first parent, `fluxlens render` of the commit (for the producers it skipped), and
 * flate's changed-only diff. Each tool gets a private HOME and TMPDIR and a cache folder
 * kept for the whole run, so later cases of the same repository start warm for both.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { checkCase, skippedProducers, type Checks } from './real-repos-checks.js';
import {
  summarizeFlate,
  summarizeFluxlens,
  type FlateSummary,
  type FluxlensSummary,
} from './real-repos-read.js';
import { measure, type Command } from './render/measure.js';
import { TOOL_PATH, TOOLS_BIN, type FluxlensLauncher } from './render/tools.js';

const KINDS = [
  'image-bump',
  'chart-bump',
  'new-app',
  'removed-app',
  'shared-component',
  'kustomization-spec',
] as const;

const Case = z
  .object({
    /** owner/name on GitHub; the mirror is `<owner>+<name>` in the mirrors folder. */
    repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/),
    pr: z.number().int().positive(),
    /** The squash-merged commit on the main line; the base is its first parent. */
    commit: z.string().regex(/^[0-9a-f]{40}$/),
    kind: z.enum(KINDS),
    /** The cluster's entry folder, as `--path` takes it. */
    entry: z.string().min(1),
    title: z.string(),
    /** The human judgement of this case's differences with flate, and anything else seen. */
    note: z.string(),
  })
  .strict();
export type Case = z.infer<typeof Case>;

export function loadCases(file: string): Case[] {
  const parsed = z
    .object({ cases: z.array(Case) })
    .strict()
    .parse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.cases;
}

export const caseId = (c: Pick<Case, 'repo' | 'pr'>) => `${c.repo}#${c.pr}`;

export interface ToolRun {
  ms: number;
  exitCode: number | null;
  /** Why there is no summary: the tool failed, or its output could not be read. */
  error?: string;
}

export interface CaseResult {
  id: string;
  base: string;
  fluxlens: { run: ToolRun; summary?: FluxlensSummary; skipped?: string[] };
  flate: { run: ToolRun; summary?: FlateSummary };
  checks?: Checks;
}

export interface RunContext {
  mirrors: string;
  work: string;
  cache: string;
  fluxlens: FluxlensLauncher;
  flate: string;
  log: (line: string) => void;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: TOOL_PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();
}

/**
 * A full local clone of the mirror (not `--shared`: flate's go-git does not follow
 * alternates), made once per repository and run.
 */
function clone(ctx: RunContext, repo: string): string {
  // Not `owner+name`: flate's kustomize refuses a '+' in a folder name.
  const dir = join(ctx.work, 'repos', repo.replace('/', '--'));
  if (existsSync(dir)) return dir;
  const mirror = join(ctx.mirrors, repo.replace('/', '+'));
  const source = existsSync(join(mirror, 'repo')) ? join(mirror, 'repo') : mirror;
  if (!existsSync(source)) throw new Error(`no mirror of ${repo} at ${mirror}`);
  mkdirSync(dirname(dir), { recursive: true });
  execFileSync('git', ['clone', '-q', '--no-checkout', source, dir], { stdio: 'pipe' });
  return dir;
}

function environment(ctx: RunContext): Record<string, string> {
  const home = join(ctx.work, 'home');
  const tmp = join(ctx.work, 'tmp');
  for (const d of [home, tmp]) mkdirSync(d, { recursive: true });
  return { PATH: TOOL_PATH, HOME: home, TMPDIR: tmp, LANG: 'C.UTF-8', NO_COLOR: '1' };
}

async function run(command: Command): Promise<ToolRun> {
  const m = await measure(command);
  const failed = m.exitCode === null || m.exitCode > 1;
  return { ms: Math.round(m.ms), exitCode: m.exitCode, ...(failed ? { error: m.stderrTail } : {}) };
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

async function runFluxlens(ctx: RunContext, c: Case, repo: string, base: string, out: string) {
  const env = {
    ...environment(ctx),
    FLUXLENS_CACHE_DIR: join(ctx.cache, 'fluxlens'),
    FLUXLENS_TOOLS_DIR: dirname(TOOLS_BIN),
  };
  const node = (args: string[], stdout: string): Command => ({
    file: process.execPath,
    args: [...ctx.fluxlens.prefix, ...args],
    cwd: repo,
    env,
    stdout,
  });
  const report = join(out, 'fluxlens.json');
  const diff = ['diff', '--repo', repo, '--base', base, '--head', c.commit, '--path', c.entry];
  diff.push('--format', 'json', '--fail-on', 'never', '--output', report);
  const result: CaseResult['fluxlens'] = { run: await run(node(diff, join(out, 'fluxlens.out'))) };
  if (result.run.error === undefined) {
    try {
      result.summary = summarizeFluxlens(readJson(report));
    } catch (err) {
      result.run.error = `unreadable report: ${String(err).slice(0, 500)}`;
    }
  }
  // Untimed: which producers the head's render skipped (diff does not say).
  const renderOut = join(out, 'render.json');
  const render = ['render', '--repo', repo, '--rev', c.commit, '--path', c.entry];
  const rendered = await run(node([...render, '--output', 'json'], renderOut));
  if (rendered.error === undefined) result.skipped = skippedProducers(readJson(renderOut));
  return result;
}

async function runFlate(ctx: RunContext, c: Case, repo: string, base: string, out: string) {
  const page = join(out, 'flate.html');
  const args = ['diff', 'all', '--path', c.entry, '--base', base, '--output', 'html'];
  args.push('--no-progress', '--log-level', 'error', '--cache-dir', join(ctx.cache, 'flate'));
  const env = { ...environment(ctx) };
  env['XDG_CACHE_HOME'] = join(env['HOME'] ?? ctx.work, '.cache');
  const result: CaseResult['flate'] = {
    run: await run({ file: ctx.flate, args, cwd: repo, env, stdout: page }),
  };
  if (result.run.error !== undefined) return result;
  const html = readFileSync(page, 'utf8');
  const stderr = readFileSync(`${page}.err`, 'utf8');
  // flate exits 1 when either side had reconcile failures, and still writes its diff; with
  // no page at all, exit 1 is a failure of the run, exit 0 a diff with nothing in it.
  if (html === '' && result.run.exitCode !== 0) {
    result.run.error = stderr.split('\n').filter(Boolean).slice(-8).join('\n');
    return result;
  }
  result.summary = summarizeFlate(html, stderr);
  return result;
}

export async function runCase(ctx: RunContext, c: Case): Promise<CaseResult> {
  const id = caseId(c);
  const repo = clone(ctx, c.repo);
  const subject = git(repo, 'log', '-1', '--format=%s', c.commit);
  if (!subject.includes(`(#${c.pr})`))
    ctx.log(`${id}: the commit's subject does not name the PR: ${subject}`);
  const base = git(repo, 'rev-parse', `${c.commit}^1`);
  git(repo, 'checkout', '-q', '--force', '--detach', c.commit);
  const out = join(ctx.work, 'out', id.replace(/[^\w.-]+/g, '-'));
  mkdirSync(out, { recursive: true });
  ctx.log(`${id} (${c.kind}): fluxlens`);
  const fluxlens = await runFluxlens(ctx, c, repo, base, out);
  ctx.log(`${id}: flate`);
  const flate = await runFlate(ctx, c, repo, base, out);
  const result: CaseResult = { id, base, fluxlens, flate };
  if (fluxlens.summary) result.checks = checkCase(fluxlens.summary, flate.summary);
  return result;
}
