/**
 * The image check keeps a registry's "present": for a digest for good (it names one
 * manifest for ever), for a tag for TAG_TTL_MS (a tag can be deleted or moved).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImageQuery } from '../../../src/model/index.js';
import {
  ImageAnswerCache,
  TAG_TTL_MS,
} from '../../../src/render/image-registry/image-answer-cache.js';

const DIGEST = `sha256:${'d'.repeat(64)}`;
const query = (reference: string): ImageQuery => ({
  image: `ghcr.io/acme/web:${reference}`,
  registry: 'ghcr.io',
  path: 'acme/web',
  reference,
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function cacheAt(clock: { now: number }): ImageAnswerCache {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-image-cache-'));
  dirs.push(dir);
  return new ImageAnswerCache(dir, () => clock.now);
}

describe('the image answer cache', () => {
  it('believes a tag it was told about until its time is up, then asks again', async () => {
    const clock = { now: 1_000_000 };
    const cache = cacheAt(clock);
    expect(await cache.present(query('1.0.0'))).toBe(false);
    await cache.remember(query('1.0.0'));
    clock.now += TAG_TTL_MS - 1;
    expect(await cache.present(query('1.0.0'))).toBe(true);
    clock.now += 1;
    expect(await cache.present(query('1.0.0'))).toBe(false);
  });

  it('believes a digest for good', async () => {
    const clock = { now: 1_000_000 };
    const cache = cacheAt(clock);
    await cache.remember(query(DIGEST));
    clock.now += 365 * 24 * 3600 * 1000;
    expect(await cache.present(query(DIGEST))).toBe(true);
  });

  it('keeps answers apart by registry, repository and reference', async () => {
    const cache = cacheAt({ now: 0 });
    await cache.remember(query('1.0.0'));
    expect(await cache.present(query('1.0.1'))).toBe(false);
    expect(await cache.present({ ...query('1.0.0'), path: 'acme/api' })).toBe(false);
    expect(await cache.present({ ...query('1.0.0'), registry: 'quay.io' })).toBe(false);
  });
});
