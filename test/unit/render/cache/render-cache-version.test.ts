/**
 * A render cache kept across an upgrade (a volume, a CI cache): what another version of
 * fluxlens wrote is never read, since what a build or a whole render holds follows from
 * fluxlens's own code as well as from its inputs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RenderCache, renderCacheKey } from '../../../../src/render/cache/index.js';

const dirs: string[] = [];
afterEach(() => {
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  vi.doUnmock('../../../../src/version.js');
  vi.resetModules();
});

/** The cache module as another version of fluxlens loads it. */
async function otherVersion(version: string) {
  vi.resetModules();
  vi.doMock('../../../../src/version.js', () => ({ FLUXLENS_VERSION: version }));
  return import('../../../../src/render/cache/index.js');
}

describe('the render cache across versions of fluxlens', () => {
  it('keys the same parts apart for another version, and alike for the same one', async () => {
    const parts = ['build', 'kustomize 5.7.1', 'apps/prod'];
    const other = await otherVersion('0.0.0-other');
    expect(other.renderCacheKey(parts)).not.toBe(renderCacheKey(parts));
    expect(other.renderCacheKey(parts)).toBe(other.renderCacheKey([...parts]));
  });

  it('misses what another version wrote under the same parts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fluxlens-cache-'));
    dirs.push(dir);
    const parts = ['export-set/1', 'abc123', 'clusters/prod'];
    const other = await otherVersion('0.0.0-other');
    await new other.RenderCache(dir, 1 << 20).put(other.renderCacheKey(parts), '{"paths":[]}');
    const cache = new RenderCache(dir, 1 << 20);
    expect(await cache.get(renderCacheKey(parts))).toBeUndefined();
    expect(await new other.RenderCache(dir, 1 << 20).get(other.renderCacheKey(parts))).toBe(
      '{"paths":[]}',
    );
  });
});
