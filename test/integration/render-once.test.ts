/**
 * One render of a commit at a time on a render cache that several workers share: a render
 * that finds its commit being rendered waits for it and reads back the render it kept
 * (the base of a burst of PRs is rendered once), and a holder that died, or that holds on
 * past the wait bound, never blocks a render for good.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { CancelledError } from '../../src/errors.js';
import { RenderCache, renderCacheKey } from '../../src/render/cache/index.js';
import { projectRoot } from '../support/paths.js';
import { builtinEngine } from '../support/render.js';
import { configMapApps, makeRepo } from '../support/repo.js';
import { scratchDirs } from '../support/scratch-dirs.js';

const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});
const { tempDir } = scratchDirs();

const APPS = 6;

function repository() {
  const files = configMapApps(APPS, (i) => ({ index: String(i) }));
  const repo = makeRepo(files, { git: true });
  cleanup.push(() => repo.remove());
  return repo;
}

/** Another worker's process holding `key` in the render cache at `dir`, once it says so. */
async function holderProcess(dir: string, key: string): Promise<ChildProcess> {
  const entry = join(projectRoot, 'test/support/render-hold-process.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', entry, dir, key], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanup.push(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('held')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before it held`)));
  });
  return child;
}

const settledFlag = (promise: Promise<unknown>) => {
  const flag = { settled: false };
  promise.then(
    () => (flag.settled = true),
    () => (flag.settled = true),
  );
  return flag;
};

describe('a render of a commit another render is making', () => {
  it('waits for it and reads back what it kept: two renders of one commit at once build it once', async () => {
    const repo = repository();
    const sha = repo.commit('base');
    const cache = { dir: tempDir('fluxlens-once-cache-'), maxBytes: 64 * 1024 * 1024 };
    const request = { repoDir: repo.dir, rev: sha, entry: 'clusters/prod', sources: [] };
    // Two engines on one cache folder, as two workers sharing a volume are.
    const [first, second] = await Promise.all([
      builtinEngine({ cache }).render(request),
      builtinEngine({ cache }).render(request),
    ]);
    const sides = [first, second];
    const readBack = sides.filter((c) => c.cache?.whole === true);
    const built = sides.filter((c) => c.cache?.whole !== true);
    expect(readBack).toHaveLength(1);
    expect(built).toHaveLength(1);
    expect(built[0]?.cache?.misses).toBeGreaterThanOrEqual(APPS);
    const keys = (c: typeof first) =>
      c.objects
        .map((o) => `${String(o.manifest['kind'])} ${JSON.stringify(o.manifest['metadata'])}`)
        .sort();
    expect(keys(first).filter((k) => k.startsWith('ConfigMap '))).toHaveLength(APPS);
    expect(keys(second)).toEqual(keys(first));
  });
});

describe('the hold on a render of a commit', () => {
  const key = renderCacheKey(['render-once test']);

  it("is taken once its holder's process is killed: a dead holder does not block for good", async () => {
    const dir = tempDir('fluxlens-once-killed-');
    const holder = await holderProcess(dir, key);
    const waiting = new RenderCache(dir, 1 << 26).hold(key, { maxWaitMs: 600_000 });
    const flag = settledFlag(waiting);
    await sleep(500);
    expect(flag.settled).toBe(false);
    holder.kill('SIGKILL');
    const hold = await waiting;
    expect(hold).toBeDefined();
    await hold?.release();
  });

  it('is taken once a holder on another machine sharing the folder stops refreshing it', async () => {
    const dir = tempDir('fluxlens-once-stale-');
    mkdirSync(join(dir, 'holds'), { recursive: true });
    const other = { host: 'another-machine', pid: 1, id: 'a-holder-that-died' };
    writeFileSync(join(dir, 'holds', `${key}.lock`), JSON.stringify(other));
    const hold = await new RenderCache(dir, 1 << 26).hold(key, {
      maxWaitMs: 600_000,
      staleMs: 1_000,
    });
    expect(hold).toBeDefined();
    await hold?.release();
  });

  it('is given up after the wait bound, and the render goes ahead without it', async () => {
    const dir = tempDir('fluxlens-once-bound-');
    await holderProcess(dir, key);
    const hold = await new RenderCache(dir, 1 << 26).hold(key, { maxWaitMs: 300 });
    expect(hold).toBeUndefined();
  });

  it('stops being waited for when the review is cancelled', async () => {
    const dir = tempDir('fluxlens-once-cancel-');
    await holderProcess(dir, key);
    const controller = new AbortController();
    const waiting = new RenderCache(dir, 1 << 26).hold(key, {
      maxWaitMs: 600_000,
      signal: controller.signal,
    });
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(CancelledError);
  });
});
