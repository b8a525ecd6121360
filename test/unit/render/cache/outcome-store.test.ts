/**
 * Whole producer outcomes in the render cache: read back exactly as written, never what
 * JSON would change, never an error, and a damaged entry is a miss, not a failure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  RenderCache,
  readOutcome,
  renderCacheKey,
  writeOutcome,
  type MemoOutcome,
} from '../../../../src/render/cache/index.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function store(): RenderCache {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-outcome-store-'));
  dirs.push(dir);
  return new RenderCache(dir, 1 << 20);
}

const producer = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'apps' };
const outcome = (data: Record<string, unknown>): MemoOutcome => ({
  objects: [
    {
      producer,
      file: 'apps/cm.yaml',
      line: 3,
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data },
      secret: { texts: ['hunter22'], fields: [{ path: ['data', 'password'] }] },
    },
    { producer, manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } } },
  ],
  assumed: ['the rendered cluster has no Secret flux-system/vars'],
});
const key = renderCacheKey(['outcome', 1]);

describe('producer outcomes in the render cache', () => {
  it('reads back what was written, and counts the read as a hit', async () => {
    const cache = store();
    const written = outcome({ replicas: 3, on: true, none: null, password: 'hunter22' });
    await writeOutcome(cache, key, written);
    expect(await readOutcome(cache, key)).toEqual(written);
    expect(cache.stats).toEqual({ hits: 1, misses: 0 });
  });

  it('does not count a producer it does not hold as a build that ran', async () => {
    const cache = store();
    expect(await readOutcome(cache, key)).toBeUndefined();
    expect(cache.stats).toEqual({ hits: 0, misses: 0 });
  });

  it.each([
    ['a number JSON cannot spell', { value: Number.NaN }],
    ['an infinity', { value: Number.POSITIVE_INFINITY }],
    ['a negative zero', { value: -0 }],
    ['a big integer', { value: 10n ** 30n }],
    ['an object that is not plain data', { value: new Date(0) }],
  ])('stores no outcome holding %s', async (_name, data) => {
    const cache = store();
    await writeOutcome(cache, key, outcome(data));
    expect(await readOutcome(cache, key)).toBeUndefined();
  });

  it('stores no error: the next render tries again', async () => {
    const cache = store();
    await writeOutcome(cache, key, { error: 'kustomize build failed: no such file' });
    expect(await readOutcome(cache, key)).toBeUndefined();
  });

  it('takes a damaged or foreign entry as a miss', async () => {
    const cache = store();
    await writeOutcome(cache, key, outcome({ a: '1' }));
    const file = join(cache.dir, key.slice(0, 2), `${key}.json`);
    writeFileSync(file, '{"v":1,"objects":[{"manifest":"not a manifest"}]}');
    expect(await readOutcome(cache, key)).toBeUndefined();
    writeFileSync(file, '{"v":1,"objects":[');
    expect(await readOutcome(cache, key)).toBeUndefined();
    writeFileSync(file, 'kind: ConfigMap\n');
    expect(await readOutcome(cache, key)).toBeUndefined();
  });
});
