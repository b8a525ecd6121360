/**
 * The merge-base of a shallow clone, as CI checks a pull request out by default: the
 * common ancestor exists but was not fetched, which the error must say.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { classify, FluxlensError } from '../../src/errors.js';
import { resolveRevisions } from '../../src/git/merge-base.js';
import { testRunner } from '../support/render.js';
import { makeRepo } from '../support/repo.js';

const runner = testRunner();
const scratch: string[] = [];
afterAll(() => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-C', dir, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: 'ignore',
  });
}

/** main and a `feature` branch two commits apart from their common ancestor. */
function upstream(): string {
  const repo = makeRepo({ 'a.txt': '1\n' }, { git: true });
  scratch.push(repo.dir);
  repo.commit('ancestor');
  git(repo.dir, 'checkout', '-q', '-b', 'feature');
  repo.write({ 'b.txt': '2\n' });
  repo.commit('feature');
  git(repo.dir, 'checkout', '-q', 'main');
  repo.write({ 'c.txt': '3\n' });
  repo.commit('main moves on');
  return repo.dir;
}

async function usageError(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FluxlensError);
  expect(classify(err)).toBe('usage');
  return (err as FluxlensError).message;
}

describe('resolveRevisions in a shallow clone', () => {
  it('says the clone is shallow when the merge-base was not fetched', async () => {
    const source = upstream();
    const clone = mkdtempSync(join(tmpdir(), 'fluxlens-shallow-'));
    scratch.push(clone);
    git(clone, 'clone', '-q', '--depth', '1', '--branch', 'feature', `file://${source}`, '.');
    git(clone, 'fetch', '-q', '--depth', '1', 'origin', 'main:refs/remotes/origin/main');
    const message = await usageError(
      resolveRevisions(runner, clone, { base: 'origin/main', head: 'HEAD' }),
    );
    expect(message).toMatch(/no common ancestor in this shallow clone/);
    const err = await resolveRevisions(runner, clone, { base: 'origin/main', head: 'HEAD' }).catch(
      (e: unknown) => e,
    );
    // The CLI turns the reason into advice (git fetch --unshallow); the worker never sees it.
    expect(err).toMatchObject({ code: 'bad-revision', reason: 'shallow-clone' });
  });

  it('finds the merge-base once the history is fetched', async () => {
    const source = upstream();
    const clone = mkdtempSync(join(tmpdir(), 'fluxlens-full-'));
    scratch.push(clone);
    git(clone, 'clone', '-q', '--branch', 'feature', `file://${source}`, '.');
    const revisions = await resolveRevisions(runner, clone, { base: 'origin/main' });
    expect(revisions.base.sha).toMatch(/^[0-9a-f]{40}$/);
  });
});
