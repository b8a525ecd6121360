/**
 * The bundled example as `npm run example` reviews it: the same throwaway repository
 * (examples/home-cluster on main, the PR branch from examples/home-cluster-pr.patch, with
 * the fixed identities and dates of scripts/example, so the same commits everywhere) and
 * `fluxlens diff` run from the sources, offline with an empty chart cache.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { main } from '../../src/cli/index.js';

export const projectRoot = resolve(import.meta.dirname, '..', '..');

export const EXAMPLE = {
  base: 'main',
  head: 'podinfo-public',
  source: join(projectRoot, 'examples', 'home-cluster'),
  patch: join(projectRoot, 'examples', 'home-cluster-pr.patch'),
} as const;

/** scripts/example's git environment: no user or system config, fixed people and dates. */
const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Sam Base',
  GIT_AUTHOR_EMAIL: 'sam@example.org',
  GIT_COMMITTER_NAME: 'Sam Base',
  GIT_COMMITTER_EMAIL: 'sam@example.org',
  GIT_AUTHOR_DATE: '2025-01-06T09:00:00Z',
  GIT_COMMITTER_DATE: '2025-01-07T18:30:00Z',
};

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], {
    env: { ...process.env, ...GIT_ENV },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Builds the example repository under `workDir` and returns its path. */
export function buildExampleRepository(workDir: string): string {
  const repo = join(workDir, 'home-cluster');
  mkdirSync(workDir, { recursive: true });
  cpSync(EXAMPLE.source, repo, { recursive: true });
  git(repo, 'init', '--quiet', `--initial-branch=${EXAMPLE.base}`);
  git(repo, 'add', '--all');
  git(
    repo,
    'commit',
    '--quiet',
    '--message',
    'home cluster: podinfo, redis, whoami, ingress-nginx',
  );
  git(repo, 'checkout', '--quiet', '-b', EXAMPLE.head);
  git(repo, 'am', '--quiet', '--committer-date-is-author-date', EXAMPLE.patch);
  return repo;
}

/** The subject of the PR branch's commit: the pull request's title. */
export function pullRequestTitle(repo: string): string {
  return git(repo, 'log', '-1', '--format=%s', EXAMPLE.head).trim();
}

export type ReportFormat = 'markdown' | 'html' | 'json';

/**
 * `fluxlens diff --format FORMAT` of the example, in this process, as `npm run example`
 * runs it. Exit 1 is expected (the example has danger findings); anything else but 0 is
 * a failure, with fluxlens's own message.
 */
export async function diffExample(
  repo: string,
  format: ReportFormat,
  cacheDir: string,
): Promise<string> {
  let stdout = '';
  let stderr = '';
  const argv = ['diff', '--repo', repo, '--base', EXAMPLE.base, '--head', EXAMPLE.head];
  const code = await main([...argv, '--offline', '--format', format], {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    isTTY: false,
    stdoutIsTTY: false,
    env: { ...process.env, FLUXLENS_CACHE_DIR: cacheDir },
  });
  if (code !== 0 && code !== 1) {
    throw new Error(`fluxlens diff --format ${format} exited ${code}: ${stderr.trim()}`);
  }
  return stdout;
}
