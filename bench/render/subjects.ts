/**
 * What a run renders: the synthetic fleet (a repository generated from the seed, its
 * charts on a loopback HelmRepository) and, when FLUXLENS_BENCH_REPOS names a folder of
 * git repositories, each of those, its last commit being the PR and its parent the base.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageCharts, startChartRepository, type ChartRepository } from './chart-repository.js';
import { FLEET_ENTRY, generateFleet, type BranchScenario } from './generate-fleet.js';
import { checkout, git, writeFleet } from './write-fleet.js';

export interface Subject {
  name: string;
  synthetic: boolean;
  repo: string;
  entry: string;
  base: string;
  /** The PR head of each branch scenario this subject has. */
  heads: Partial<Record<BranchScenario, string>>;
  /** A work tree at `sha`, for the peers that read files, made on first use. */
  checkout(sha: string): string;
  facts: Record<string, string | number>;
}

function checkouts(repo: string, dir: string): (sha: string) => string {
  const made = new Map<string, string>();
  return (sha) => {
    let path = made.get(sha);
    if (path === undefined) {
      path = checkout(repo, sha, join(dir, sha.slice(0, 12)));
      made.set(sha, path);
    }
    return path;
  };
}

export async function syntheticSubject(
  work: string,
  options: { seed: number; kustomizations: number; releases: number },
  env: NodeJS.ProcessEnv,
): Promise<{ subject: Subject; charts: ChartRepository }> {
  const chartDir = join(work, 'charts');
  mkdirSync(chartDir, { recursive: true });
  const charts = await startChartRepository(chartDir);
  try {
    packageCharts(chartDir, charts.url, env);
    const fleet = generateFleet({ ...options, chartRepositoryUrl: charts.url });
    const repo = join(work, 'fleet');
    const commits = writeFleet(repo, fleet);
    const heads: Subject['heads'] = {};
    for (const branch of fleet.branches) {
      const sha = commits[branch.name];
      if (sha !== undefined) heads[branch.scenario] = sha;
    }
    const subject: Subject = {
      name: `synthetic (${options.kustomizations} Kustomizations, ${options.releases} HelmReleases, seed ${options.seed})`,
      synthetic: true,
      repo,
      entry: FLEET_ENTRY,
      base: commits['main'] ?? '',
      heads,
      checkout: checkouts(repo, join(work, 'trees')),
      facts: { ...fleet.facts, files: Object.keys(fleet.files).length, charts: charts.url },
    };
    return { subject, charts };
  } catch (err) {
    await charts.close();
    throw err;
  }
}

/** Per-repository settings in `<dir>/bench-repos.json`: `{ "<folder>": { "path": "clusters/prod" } }`. */
function readConfig(dir: string): Record<string, { path?: string }> {
  const file = join(dir, 'bench-repos.json');
  if (!existsSync(file)) return {};
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`${file}: expected an object`);
  return parsed as Record<string, { path?: string }>;
}

/** Where Flux repositories keep a cluster's entry, in the order tried. */
const ENTRY_PATTERNS = [
  /^kubernetes\/flux\/cluster$/,
  /^kubernetes\/[^/]+\/flux\/cluster$/,
  /^clusters\/[^/]+$/,
  /^kubernetes\/clusters\/[^/]+$/,
  /^cluster$/,
];

export function guessEntry(folders: readonly string[]): string | undefined {
  for (const pattern of ENTRY_PATTERNS) {
    const found = folders.filter((f) => pattern.test(f)).sort()[0];
    if (found !== undefined) return found;
  }
  // flux bootstrap writes <entry>/flux-system.
  return folders
    .filter((f) => f.endsWith('/flux-system'))
    .map((f) => f.slice(0, -'/flux-system'.length))
    .sort()[0];
}

export function realSubjects(dir: string, work: string, log: (line: string) => void): Subject[] {
  const config = readConfig(dir);
  const subjects: Subject[] = [];
  for (const name of readdirSync(dir).sort()) {
    const repo = join(dir, name);
    if (!existsSync(join(repo, '.git'))) continue;
    try {
      const head = git(repo, 'rev-parse', 'HEAD');
      const base = git(repo, 'rev-parse', 'HEAD^');
      const folders = git(repo, 'ls-tree', '-r', '-d', '--name-only', head).split('\n');
      const entry = config[name]?.path ?? guessEntry(folders);
      if (entry === undefined) {
        log(`${name}: no cluster entry found; give one in bench-repos.json`);
        continue;
      }
      subjects.push({
        name,
        synthetic: false,
        repo,
        entry,
        base,
        heads: { 'one-file': head },
        checkout: checkouts(repo, join(work, 'trees', name)),
        facts: {
          entry,
          base: base.slice(0, 12),
          head: head.slice(0, 12),
          change: git(repo, 'log', '-1', '--format=%s'),
        },
      });
    } catch (err) {
      log(`${name}: skipped (${String(err).split('\n')[0]})`);
    }
  }
  return subjects;
}
