/**
 * Writes a fleet to disk as a git repository: the base on `main`, one branch per PR
 * scenario on top of it. Author, committer and dates are fixed, so the same fleet gives
 * the same commit ids. Peers that read a work tree get a clone per revision.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Fleet } from './generate-fleet.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'commit.gpgsign=false', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, ...GIT_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** The repository at `dir` (created); returns the commit of `main` and of each branch. */
export function writeFleet(dir: string, fleet: Fleet): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, fleet.files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'fleet');
  const commits: Record<string, string> = { main: git(dir, 'rev-parse', 'HEAD') };
  for (const branch of fleet.branches) {
    git(dir, 'checkout', '-q', '-b', branch.name, 'main');
    writeFiles(dir, branch.files);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', branch.message);
    commits[branch.name] = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'checkout', '-q', 'main');
  }
  return commits;
}

/** A clone of `repo` with commit `sha` checked out, and `main` as a local branch too. */
export function checkout(repo: string, sha: string, dir: string): string {
  execFileSync('git', ['clone', '-q', '--no-checkout', repo, dir], {
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, ...GIT_ENV },
    stdio: 'pipe',
  });
  git(dir, 'checkout', '-q', '--detach', sha);
  return dir;
}
