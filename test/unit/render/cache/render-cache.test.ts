/** The render cache's store: whole entries or none, least recently used go first. */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RenderCache, renderCacheKey } from '../../../../src/render/cache/index.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function cacheOf(maxBytes: number): RenderCache {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-render-cache-unit-'));
  dirs.push(dir);
  return new RenderCache(dir, maxBytes);
}

const key = (n: number) => renderCacheKey(['entry', n]);
const fileOf = (cache: RenderCache, k: string) => join(cache.dir, k.slice(0, 2), `${k}.json`);

describe('the render cache store', () => {
  it('gives back what was put, and counts hits and misses', async () => {
    const cache = cacheOf(1 << 20);
    expect(await cache.get(key(1))).toBeUndefined();
    await cache.put(key(1), 'kind: ConfigMap\n');
    expect(await cache.get(key(1))).toBe('kind: ConfigMap\n');
    expect(cache.stats).toEqual({ hits: 1, misses: 1 });
  });

  it('keeps entries readable by their owner only', async () => {
    const cache = cacheOf(1 << 20);
    await cache.put(key(1), 'secret-ish');
    expect(statSync(fileOf(cache, key(1))).mode & 0o077).toBe(0);
  });

  it('removes the least recently used entries when a write passes the bound', async () => {
    const cache = cacheOf(250);
    const hundred = 'x'.repeat(100);
    await cache.put(key(1), hundred);
    await cache.put(key(2), hundred);
    // Entry 1 was used last: entry 2 is the one to go.
    const past = new Date(Date.now() - 60_000);
    await utimes(fileOf(cache, key(2)), past, past);
    await cache.get(key(1));
    await cache.put(key(3), hundred);
    expect(await cache.get(key(1))).toBe(hundred);
    expect(await cache.get(key(2))).toBeUndefined();
    expect(await cache.get(key(3))).toBe(hundred);
  });

  it('keeps the size it measured beside its entries, for the next process to start from', async () => {
    const cache = cacheOf(1 << 20);
    await cache.put(key(1), 'x'.repeat(100));
    // Its first write in this process found no measurement, so it measured the folder.
    expect(readFileSync(join(cache.dir, 'size'), 'utf8')).toBe('100\n');
  });

  it('starts from the recorded size instead of walking the folder, and measures past the bound', async () => {
    const seeded = cacheOf(250);
    for (const n of [1, 2]) {
      mkdirSync(join(seeded.dir, key(n).slice(0, 2)), { recursive: true });
      writeFileSync(fileOf(seeded, key(n)), 'x'.repeat(100));
    }
    // A measurement that says the folder is empty is taken as it is: nothing is evicted...
    writeFileSync(join(seeded.dir, 'size'), '0\n');
    const cache = new RenderCache(seeded.dir, 250);
    await cache.put(key(3), 'x'.repeat(100));
    expect(readdirSync(seeded.dir).filter((d) => d !== 'size')).toHaveLength(3);
    // ...until the count this process keeps passes the bound: then it measures, and evicts.
    await cache.put(key(4), 'x'.repeat(100));
    await cache.put(key(5), 'x'.repeat(100));
    expect(Number(readFileSync(join(seeded.dir, 'size'), 'utf8'))).toBeLessThanOrEqual(250);
    expect(await cache.get(key(5))).toBe('x'.repeat(100));
  });

  it('lets two writers of one key end with one whole entry', async () => {
    const a = cacheOf(1 << 20);
    const b = new RenderCache(a.dir, 1 << 20);
    await Promise.all([a.put(key(7), 'same output'), b.put(key(7), 'same output')]);
    expect(await a.get(key(7))).toBe('same output');
  });

  it('refuses a key that is not one of its own', async () => {
    await expect(cacheOf(1 << 20).get('../../etc/passwd')).rejects.toThrow(
      /not a render cache key/,
    );
  });
});
