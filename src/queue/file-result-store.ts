import { randomUUID } from 'node:crypto';
import {
  type FileHandle,
  mkdir,
  open,
  opendir,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CommitSha } from './commit-sha.js';
import { pullKey, pullOfKey, repositoryKey } from './pull-key.js';
import {
  MAX_LISTED_RESULTS,
  type PullRef,
  type ResultQuery,
  type ResultStore,
  type StoredResult,
} from './types.js';

const Header = z.object({ headSha: CommitSha });
/** The header line is short; has() reads only this much of a possibly large file. */
const HEADER_BYTES = 128;

/** How often writes also sweep the folder for expired results. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** Files one sweep looks at, so a huge folder costs a bounded pause per hour. */
const SWEEP_MAX_FILES = 100_000;

export interface FileResultStoreOptions {
  /**
   * A result whose file was last written longer ago reads as absent, and sweeps (at the
   * first write, then hourly on write) delete it. Undefined keeps results forever.
   */
  ttlSeconds?: number;
}

/**
 * Results on disk, one file per PR: a JSON header line with the head SHA, then the result
 * as given. Written to a temp file and renamed, so a crash never leaves half a result.
 */
export function createFileResultStore(
  dir: string,
  options: FileResultStoreOptions = {},
): ResultStore {
  const fileOf = (pull: PullRef) => path.join(dir, `${pullKey(pull)}.result`);
  const rangeFileOf = (jobId: string) => path.join(dir, `range~${RangeJobId.parse(jobId)}.result`);
  const ttlMs = options.ttlSeconds === undefined ? undefined : options.ttlSeconds * 1000;
  const expired = (mtimeMs: number) => ttlMs !== undefined && mtimeMs < Date.now() - ttlMs;
  let nextSweep = 0;
  const sweep = async (): Promise<void> => {
    nextSweep = Date.now() + SWEEP_INTERVAL_MS;
    if (ttlMs !== undefined) await sweepExpired(dir, expired);
  };
  return {
    async put(pull, headSha, resultJson) {
      Header.parse({ headSha });
      await mkdir(dir, { recursive: true });
      if (Date.now() >= nextSweep) await sweep();
      await writeResult(fileOf(pull), headSha, resultJson);
    },
    async get(pull) {
      const stored = await readLive(fileOf(pull), expired, readResult);
      return stored && { headSha: stored.headSha, resultJson: stored.resultJson };
    },
    async has(pull, headSha) {
      return (await readLive(fileOf(pull), expired, readHeadSha)) === headSha;
    },
    list: (query) => listResults(dir, query, expired),
    async putRange(jobId, headSha, resultJson) {
      Header.parse({ headSha });
      await mkdir(dir, { recursive: true });
      await writeResult(rangeFileOf(jobId), headSha, resultJson);
    },
    async getRange(jobId) {
      const stored = await readLive(rangeFileOf(jobId), expired, readResult);
      return stored && { headSha: stored.headSha, resultJson: stored.resultJson };
    },
  };
}

/** A job id as the queues make them; anything else never names a file. */
const RangeJobId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/);

async function writeResult(file: string, headSha: string, resultJson: string): Promise<void> {
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify({ headSha })}\n${resultJson}`);
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
}

async function readResult(
  handle: FileHandle,
): Promise<{ headSha: string; resultJson: string; storedAt: number }> {
  const storedAt = (await handle.stat()).mtimeMs;
  const text = await handle.readFile('utf8');
  const newline = text.indexOf('\n');
  const header = Header.parse(JSON.parse(text.slice(0, newline)));
  return { headSha: header.headSha, resultJson: text.slice(newline + 1), storedAt };
}

/**
 * The newest results by the time their file was written: one pass over the folder (at
 * most SWEEP_MAX_FILES entries, as a sweep), then only the files listed are read.
 */
async function listResults(
  dir: string,
  query: ResultQuery,
  expired: (mtimeMs: number) => boolean,
): Promise<StoredResult[]> {
  const limit = Math.min(query.limit, MAX_LISTED_RESULTS);
  const prefix = query.repository ? `${repositoryKey(query.repository)}~` : '';
  let entries;
  try {
    entries = await opendir(dir);
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  const found: Array<{ name: string; mtimeMs: number }> = [];
  let seen = 0;
  for await (const entry of entries) {
    if (++seen > SWEEP_MAX_FILES) break;
    if (!entry.isFile() || !entry.name.endsWith('.result') || !entry.name.startsWith(prefix)) {
      continue;
    }
    const info = await stat(path.join(dir, entry.name)).catch(() => undefined);
    if (info !== undefined && !expired(info.mtimeMs))
      found.push({ name: entry.name, mtimeMs: info.mtimeMs });
  }
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? -1 : 1));
  const out: StoredResult[] = [];
  for (const { name } of found) {
    if (out.length >= limit) break;
    const pull = pullOfKey(name.slice(0, -'.result'.length));
    const stored = pull && (await readLive(path.join(dir, name), expired, readResult));
    if (pull && stored) out.push({ pull, ...stored });
  }
  return out;
}

/** `read` of the file, or undefined when it is missing or expired. */
async function readLive<T>(
  file: string,
  expired: (mtimeMs: number) => boolean,
  read: (handle: FileHandle) => Promise<T>,
): Promise<T | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  try {
    if (expired((await handle.stat()).mtimeMs)) return undefined;
    return await read(handle);
  } finally {
    await handle.close();
  }
}

async function readHeadSha(handle: FileHandle): Promise<string> {
  const buffer = Buffer.alloc(HEADER_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
  const head = buffer.subarray(0, bytesRead).toString('utf8');
  return Header.parse(JSON.parse(head.slice(0, head.indexOf('\n')))).headSha;
}

/** Deletes expired results, and temp files a crash left behind. */
async function sweepExpired(dir: string, expired: (mtimeMs: number) => boolean): Promise<void> {
  let entries;
  try {
    entries = await opendir(dir);
  } catch (err) {
    if (isMissing(err)) return;
    throw err;
  }
  let seen = 0;
  for await (const entry of entries) {
    if (++seen > SWEEP_MAX_FILES) break;
    if (!entry.isFile() || !/\.(result|tmp)$/.test(entry.name)) continue;
    const file = path.join(dir, entry.name);
    const info = await stat(file).catch(() => undefined);
    if (info === undefined || !expired(info.mtimeMs)) continue;
    await rm(file, { force: true });
  }
}

function isMissing(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'ENOENT';
}

/** Results in memory, for an inline queue without a result directory (tests, one-shots). */
export function createMemoryResultStore(): ResultStore {
  const results = new Map<string, StoredResult>();
  const ranges = new Map<string, { headSha: string; resultJson: string }>();
  return {
    put(pull, headSha, resultJson) {
      Header.parse({ headSha });
      const key = pullKey(pull);
      // Re-inserted, so the map's order is the order of the latest writes.
      results.delete(key);
      const stored = { pull: pullOfKey(key) ?? pull, headSha, resultJson, storedAt: Date.now() };
      results.set(key, stored);
      return Promise.resolve();
    },
    putRange(jobId, headSha, resultJson) {
      Header.parse({ headSha });
      ranges.set(jobId, { headSha, resultJson });
      return Promise.resolve();
    },
    getRange: (jobId) => Promise.resolve(ranges.get(jobId)),
    get(pull) {
      const stored = results.get(pullKey(pull));
      return Promise.resolve(stored && { headSha: stored.headSha, resultJson: stored.resultJson });
    },
    has(pull, headSha) {
      return Promise.resolve(results.get(pullKey(pull))?.headSha === headSha);
    },
    list(query) {
      const prefix = query.repository ? `${repositoryKey(query.repository)}~` : '';
      const newest = [...results].reverse().filter(([key]) => key.startsWith(prefix));
      const limit = Math.min(query.limit, MAX_LISTED_RESULTS);
      return Promise.resolve(newest.slice(0, Math.max(0, limit)).map(([, stored]) => stored));
    },
  };
}
