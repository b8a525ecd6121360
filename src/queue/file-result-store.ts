import { randomUUID } from 'node:crypto';
import {
  type FileHandle,
  mkdir,
  open,
  opendir,
  readdir,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CommitSha } from './commit-sha.js';
import { pullKey, repositoryKey } from './pull-key.js';
import type { PullRef, ResultStore, StoredReview } from './types.js';

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
    get: async (pull) => readResult(fileOf(pull), expired),
    async has(pull, headSha) {
      return (await readLive(fileOf(pull), expired, readHeadSha)) === headSha;
    },
    async putRange(jobId, headSha, resultJson) {
      Header.parse({ headSha });
      await mkdir(dir, { recursive: true });
      await writeResult(rangeFileOf(jobId), headSha, resultJson);
    },
    getRange: async (jobId) => readResult(rangeFileOf(jobId), expired),
    async latest(repository, limit) {
      const prefix = `${repositoryKey(repository)}~`;
      const found: StoredReview[] = [];
      for (const name of await readdir(dir).catch(() => [])) {
        const number = /^([1-9][0-9]{0,15})\.result$/.exec(name.slice(prefix.length))?.[1];
        if (!name.startsWith(prefix) || number === undefined) continue;
        const file = path.join(dir, name);
        const info = await stat(file).catch(() => undefined);
        if (info === undefined || expired(info.mtimeMs)) continue;
        const headSha = await readLive(file, expired, readHeadSha);
        if (headSha === undefined) continue;
        found.push({ pullNumber: Number(number), headSha, storedAt: info.mtime });
      }
      return newestFirst(found, limit);
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
  file: string,
  expired: (mtimeMs: number) => boolean,
): Promise<{ headSha: string; resultJson: string } | undefined> {
  const text = await readLive(file, expired, (handle) => handle.readFile('utf8'));
  if (text === undefined) return undefined;
  const newline = text.indexOf('\n');
  const header = Header.parse(JSON.parse(text.slice(0, newline)));
  return { headSha: header.headSha, resultJson: text.slice(newline + 1) };
}

function newestFirst(reviews: StoredReview[], limit: number): StoredReview[] {
  return reviews
    .sort((a, b) => b.storedAt.getTime() - a.storedAt.getTime() || b.pullNumber - a.pullNumber)
    .slice(0, limit);
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
  const results = new Map<string, { headSha: string; resultJson: string; storedAt: Date }>();
  const ranges = new Map<string, { headSha: string; resultJson: string }>();
  const pulls = new Map<string, { repository: string; pullNumber: number }>();
  return {
    put(pull, headSha, resultJson) {
      Header.parse({ headSha });
      results.set(pullKey(pull), { headSha, resultJson, storedAt: new Date() });
      pulls.set(pullKey(pull), { repository: repositoryKey(pull), pullNumber: pull.pullNumber });
      return Promise.resolve();
    },
    putRange(jobId, headSha, resultJson) {
      Header.parse({ headSha });
      ranges.set(jobId, { headSha, resultJson });
      return Promise.resolve();
    },
    getRange: (jobId) => Promise.resolve(ranges.get(jobId)),
    latest(repository, limit) {
      const found: StoredReview[] = [];
      for (const [key, pull] of pulls) {
        const stored = results.get(key);
        if (pull.repository !== repositoryKey(repository) || stored === undefined) continue;
        const { headSha, storedAt } = stored;
        found.push({ pullNumber: pull.pullNumber, headSha, storedAt });
      }
      return Promise.resolve(newestFirst(found, limit));
    },
    get(pull) {
      const stored = results.get(pullKey(pull));
      return Promise.resolve(stored && { headSha: stored.headSha, resultJson: stored.resultJson });
    },
    has(pull, headSha) {
      return Promise.resolve(results.get(pullKey(pull))?.headSha === headSha);
    },
  };
}
