/**
 * The content-addressed chart cache shared by every render:
 *
 *   <cacheDir>/<key>/chart/       the unpacked chart, as helm loads it
 *   <cacheDir>/<key>/chart.json   what it is (name, version, digest, where from)
 *   <cacheDir>/refs/<ref>.json    a version request (repository, chart, version spec)
 *                                 resolved earlier, pointing at a key
 *
 * key = sha256 of (source URL, chart name, resolved version, digest). Entries are built
 * in a temporary folder and renamed into place, so a reader sees a whole entry or none,
 * and concurrent renders filling the same key both end with the same content.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

export const CachedChartMeta = z.object({
  name: z.string(),
  version: z.string(),
  digest: z.string(),
  /** The repository or registry URL the chart came from. */
  url: z.string(),
});
export type CachedChartMeta = z.infer<typeof CachedChartMeta>;

export interface CachedChart {
  key: string;
  /** The unpacked chart inside the cache; copy it before changing anything. */
  dir: string;
  meta: CachedChartMeta;
}

const RefRecord = z.object({
  key: z.string().regex(/^[0-9a-f]{64}$/),
  /** For OCI: the tag the request resolved to (helm-controller compares it with the chart). */
  tag: z.string().optional(),
});

export interface RefHit {
  chart: CachedChart;
  tag?: string;
}

export function cacheKey(parts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

export class ChartCache {
  constructor(readonly root: string) {}

  async get(key: string): Promise<CachedChart | undefined> {
    const text = await readFile(join(this.root, key, 'chart.json'), 'utf8').catch(() => undefined);
    if (text === undefined) return undefined;
    const meta = CachedChartMeta.safeParse(safeJson(text));
    return meta.success ? { key, dir: join(this.root, key, 'chart'), meta: meta.data } : undefined;
  }

  /**
   * Stores an entry filled by `fill(chartDir)` unless the key is already there. A second
   * writer of the same key loses the rename race and keeps the first writer's entry.
   */
  async put(
    key: string,
    meta: CachedChartMeta,
    fill: (chartDir: string) => Promise<void>,
  ): Promise<CachedChart> {
    const existing = await this.get(key);
    if (existing) return existing;
    await mkdir(this.root, { recursive: true });
    const tmp = await mkdtemp(join(this.root, '.tmp-'));
    try {
      await fill(join(tmp, 'chart'));
      await writeFile(join(tmp, 'chart.json'), `${JSON.stringify(meta, null, 2)}\n`);
      await rename(tmp, join(this.root, key)).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      });
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    const stored = await this.get(key);
    if (!stored) throw new Error(`chart cache entry ${key} vanished after it was written`);
    return stored;
  }

  /** The entry a version request resolved to before, if both are still there. */
  async getRef(ref: string): Promise<RefHit | undefined> {
    const text = await readFile(this.refPath(ref), 'utf8').catch(() => undefined);
    const record = text === undefined ? undefined : RefRecord.safeParse(safeJson(text));
    if (!record?.success) return undefined;
    const chart = await this.get(record.data.key);
    if (!chart) return undefined;
    return record.data.tag === undefined ? { chart } : { chart, tag: record.data.tag };
  }

  async putRef(ref: string, key: string, tag?: string): Promise<void> {
    const dir = join(this.root, 'refs');
    await mkdir(dir, { recursive: true });
    const tmp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
    await writeFile(tmp, `${JSON.stringify(tag === undefined ? { key } : { key, tag })}\n`);
    await rename(tmp, this.refPath(ref));
  }

  private refPath(ref: string): string {
    return join(this.root, 'refs', `${ref}.json`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
