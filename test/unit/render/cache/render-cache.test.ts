/** The render cache's store: whole entries or none, least recently used go first. */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
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
