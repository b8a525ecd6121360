/**
 * Per-producer build results kept by content key, on disk so that they outlive the
 * process: the base of most PRs is the same merge-base, and a one-file PR's head shares
 * all but a few builds with its base. A key covers everything a build reads (see its
 * callers), so a hit is the build's own output, not an approximation.
 *
 *   <dir>/<key[0:2]>/<key>.json   one entry, written to a temporary file and renamed into
 *                                 place: a reader sees a whole entry or none, and two
 *                                 processes writing one key both leave the same content.
 *
 * Bounded in bytes: an entry's modification time is its last use, and the least recently
 * used entries go first when a write takes the folder past the bound. A read that loses
 * a race with eviction is a miss. Entries are readable by their owner only: a build's
 * output may hold what the repository's Secrets say.
 *
 *   <dir>/size                    the folder's size as last measured, so that a process
 *                                 starts from it instead of measuring a folder of thousands
 *                                 of entries before its first write
 *
 * The size is known approximately: each process adds what it writes, and measures again
 * every MEASURE_EVERY writes or when its count passes the bound; so another process's
 * writes may take the folder past the bound by up to that many entries before one measures.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { takeFileLock, type FileLock } from '../../git/index.js';
import { FLUXLENS_VERSION } from '../../version.js';

export interface RenderCacheStats {
  hits: number;
  misses: number;
}

const KEY = /^[0-9a-f]{64}$/;
/** Writes between two measurements of the folder's size. */
const MEASURE_EVERY = 64;
/**
 * A hold nobody refreshed for this long belongs to a holder that died on another machine
 * sharing the folder; one on this machine is known dead at once (repository-lock.ts).
 */
const HOLD_STALE_MS = 30_000;

export interface HoldOptions {
  signal?: AbortSignal | undefined;
  /** How long to wait for another holder before going ahead without a hold. */
  maxWaitMs: number;
  staleMs?: number;
}

/**
 * A key names the version of fluxlens too: what a build, an export set or a whole render
 * holds follows from fluxlens's own code as well as from its inputs, so a cache kept across
 * an upgrade (a volume, a CI cache) is never read by another version.
 */
export function renderCacheKey(parts: unknown): string {
  return createHash('sha256')
    .update(`fluxlens ${FLUXLENS_VERSION}\0`)
    .update(JSON.stringify(parts))
    .digest('hex');
}

/** What a process knows of a folder's size: undefined until measured (or read, see `ready`). */
interface KnownSize {
  /** Settles once the folder's last measurement is read, if there is one. */
  ready: Promise<void>;
  bytes: number | undefined;
  writes: number;
}

/** Per folder: one count for every RenderCache of this process on it. */
const sizes = new Map<string, KnownSize>();

export class RenderCache {
  readonly stats: RenderCacheStats = { hits: 0, misses: 0 };

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  /**
   * The entry under `key`. `counted`: 'hits' when a miss is not a build that will run (a
   * whole producer looked up before its build is), 'never' for what is not a build.
   */
  async get(
    key: string,
    counted: 'always' | 'hits' | 'never' = 'always',
  ): Promise<string | undefined> {
    const file = this.fileOf(key);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) {
      if (counted === 'always') this.stats.misses += 1;
      return undefined;
    }
    if (counted !== 'never') this.stats.hits += 1;
    const now = new Date();
    await utimes(file, now, now).catch(() => undefined);
    return text;
  }

  /**
   * The entry under `key` as `schema` reads its JSON; an entry that does not parse (damaged,
   * or written by another version) is a miss, counted as `get` counts one.
   */
  async getParsed<T>(
    key: string,
    schema: z.ZodType<T>,
    counted: 'always' | 'hits' | 'never' = 'always',
  ): Promise<T | undefined> {
    const text = await this.get(key, 'never');
    const parsed = text === undefined ? undefined : schema.safeParse(parseJson(text)).data;
    if (parsed === undefined) {
      if (counted === 'always') this.stats.misses += 1;
    } else if (counted !== 'never') this.stats.hits += 1;
    return parsed;
  }

  async put(key: string, value: string): Promise<void> {
    const file = this.fileOf(key);
    await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, value, { mode: 0o600 });
      await rename(tmp, file);
    } finally {
      await rm(tmp, { force: true });
    }
    const known = this.#known();
    await known.ready;
    if (known.bytes !== undefined) known.bytes += Buffer.byteLength(value);
    const size = known.bytes;
    if (size === undefined || size > this.maxBytes || ++known.writes % MEASURE_EVERY === 0)
      await this.evict(file);
  }

  /**
   * Holds `key` until released, for work whose result goes under it: whoever else asks for
   * the same key, in this process or another sharing the folder, waits until then and can
   * read the result instead of doing the same work at once. Undefined when another holder
   * kept it past `maxWaitMs`.
   */
  async hold(key: string, options: HoldOptions): Promise<FileLock | undefined> {
    if (!KEY.test(key)) throw new Error(`not a render cache key: ${key}`);
    const dir = join(this.dir, 'holds');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return takeFileLock(join(dir, key), { staleMs: HOLD_STALE_MS, ...options });
  }

  /**
   * Removes the least recently used entries until the folder is within its bound, never
   * `written`, the entry just put: file times may tie within a clock tick, and what was just
   * written is what its writer reads next.
   */
  async evict(written?: string): Promise<void> {
    const entries = await this.entries();
    let size = entries.reduce((total, e) => total + e.size, 0);
    entries.sort((a, b) => a.used - b.used);
    for (const entry of entries) {
      if (size <= this.maxBytes) break;
      if (entry.file === written) continue;
      await rm(entry.file, { force: true });
      size -= entry.size;
    }
    this.#known().bytes = size;
    await this.#writeSize(size);
  }

  /** The size this process knows, starting from the folder's last measurement. */
  #known(): KnownSize {
    let known = sizes.get(this.dir);
    if (known === undefined) {
      const fresh: KnownSize = { ready: Promise.resolve(), bytes: undefined, writes: 0 };
      fresh.ready = readFile(join(this.dir, 'size'), 'utf8').then(
        (text) => {
          if (/^\d+\n?$/.test(text)) fresh.bytes ??= Number(text);
        },
        () => undefined,
      );
      known = fresh;
      sizes.set(this.dir, known);
    }
    return known;
  }

  async #writeSize(size: number): Promise<void> {
    const file = join(this.dir, 'size');
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, `${size}\n`, { mode: 0o600 });
      await rename(tmp, file);
    } catch {
      // Only a head start for the next process: it measures when there is none.
    } finally {
      await rm(tmp, { force: true });
    }
  }

  private fileOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`not a render cache key: ${key}`);
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  private async entries(): Promise<Array<{ file: string; size: number; used: number }>> {
    const out: Array<{ file: string; size: number; used: number }> = [];
    const shards = await readdir(this.dir).catch(() => [] as string[]);
    for (const shard of shards) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      const names = await readdir(join(this.dir, shard)).catch(() => [] as string[]);
      for (const name of names) {
        if (!name.endsWith('.json')) continue;
        const file = join(this.dir, shard, name);
        const info = await stat(file).catch(() => undefined);
        if (info) out.push({ file, size: info.size, used: info.mtimeMs });
      }
    }
    return out;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
