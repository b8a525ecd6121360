/**
 * One writer per mirror, and one render of a commit at a time (render/cache/): an in-process
 * queue per path (jobs of one worker wait their turn in order, without polling) around an
 * exclusive lock file `<path>.lock` (workers in other processes sharing the cache folder poll
 * for it with backoff).
 *
 * The lock file is created with O_EXCL (`open(path, 'wx')`), which is atomic on local
 * filesystems; `flock` is not reachable from Node without a native module or an extra
 * process. A holder that died leaves its file behind, so the file names its holder
 * (host, pid, a random id) and its mtime is refreshed while held: a lock is stale when its
 * holder is a dead process on this host, or when nobody refreshed it for `staleMs`.
 */
import { randomUUID } from 'node:crypto';
import { open, readFile, rm, stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CancelledError } from '../errors.js';
import { MirrorError } from './mirror-error.js';

export interface LockOptions {
  signal?: AbortSignal | undefined;
  /** A lock file nobody refreshed for this long belongs to a dead holder. */
  staleMs?: number;
  /** How long to wait for another process's lock before giving up. */
  maxWaitMs?: number;
}

const DEFAULT_STALE_MS = 120_000;
const DEFAULT_MAX_WAIT_MS = 15 * 60_000;
const FIRST_BACKOFF_MS = 25;
const MAX_BACKOFF_MS = 1_000;

// Shared by every job of this process by design: the queue must see all of them.
const queues = new Map<string, Promise<void>>();
/** Ids of the lock files this process holds, to tell ours from a dead predecessor's. */
const held = new Set<string>();

/** A lock taken with takeFileLock; releasing it twice releases it once. */
export interface FileLock {
  release(): Promise<void>;
}

/** Runs `fn` holding the lock of `path` (in this process and across processes). */
export async function withRepositoryLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const lock = await takeFileLock(path, options);
  if (lock === undefined) throw new MirrorError('busy', `${path}.lock is held by another process`);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

/**
 * Takes the lock of `path` (in this process and across processes) until released; undefined
 * when another process held it past `maxWaitMs`.
 */
export async function takeFileLock(
  path: string,
  options: LockOptions = {},
): Promise<FileLock | undefined> {
  const previous = queues.get(path) ?? Promise.resolve();
  let leave!: () => void;
  const mine = new Promise<void>((resolve) => (leave = resolve));
  // The next job waits for us and for everyone before us, even if we give up early.
  const turn = previous.then(() => mine);
  queues.set(path, turn);
  void turn.then(() => {
    if (queues.get(path) === turn) queues.delete(path);
  });
  try {
    await untilAborted(previous, options.signal);
    const lockPath = `${path}.lock`;
    const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
    const id = await acquireFile(lockPath, staleMs, options);
    if (id === undefined) {
      leave();
      return undefined;
    }
    const refresh = setInterval(() => {
      const now = new Date();
      utimes(lockPath, now, now).catch(() => undefined);
    }, staleMs / 4);
    refresh.unref();
    let released: Promise<void> | undefined;
    const release = async () => {
      clearInterval(refresh);
      try {
        await releaseFile(lockPath, id);
      } finally {
        leave();
      }
    };
    return { release: () => (released ??= release()) };
  } catch (err) {
    leave();
    throw err;
  }
}

async function untilAborted(promise: Promise<void>, signal: AbortSignal | undefined) {
  if (!signal) return promise;
  if (signal.aborted) throw cancelled();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

interface Holder {
  host: string;
  pid: number;
  id: string;
}

async function acquireFile(
  lockPath: string,
  staleMs: number,
  options: LockOptions,
): Promise<string | undefined> {
  const deadline = Date.now() + (options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
  const holder: Holder = { host: hostname(), pid: process.pid, id: randomUUID() };
  for (let attempt = 0; ; attempt++) {
    if (await tryCreate(lockPath, holder)) break;
    if (await breakIfStale(lockPath, staleMs)) continue;
    if (Date.now() > deadline) return undefined;
    const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt);
    try {
      await sleep(backoff / 2 + Math.random() * (backoff / 2), undefined, {
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (err) {
      if (options.signal?.aborted) throw cancelled();
      throw err;
    }
  }
  held.add(holder.id);
  return holder.id;
}

function cancelled(): CancelledError {
  return new CancelledError('waiting for a lock was cancelled');
}

async function tryCreate(lockPath: string, holder: Holder): Promise<boolean> {
  try {
    const file = await open(lockPath, 'wx');
    try {
      await file.writeFile(JSON.stringify(holder));
    } finally {
      await file.close();
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

async function releaseFile(lockPath: string, id: string): Promise<void> {
  held.delete(id);
  // Another process may have judged our lock stale and taken it: leave theirs alone.
  const current = await readFile(lockPath, 'utf8').catch(() => undefined);
  if (current !== undefined && parseHolder(current)?.id === id) await rm(lockPath, { force: true });
}

/** Removes the lock file if its holder is gone; true when the caller should retry at once. */
async function breakIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
  // An empty file is a holder between create and write: only the age rule applies.
  const holder = parseHolder(text);
  const dead = holder !== undefined && holder.host === hostname() && !isAlive(holder);
  if (!dead && Date.now() - mtimeMs <= staleMs) return false;
  // Remove only the file judged stale, not one a new holder created since.
  const again = await readFile(lockPath, 'utf8').catch(() => undefined);
  if (again === text) await rm(lockPath, { force: true });
  return true;
}

function isAlive(holder: Holder): boolean {
  // Our own pid on a lock we do not hold: a previous run of this process's container.
  if (holder.pid === process.pid) return held.has(holder.id);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { host, pid, id } = value as Record<string, unknown>;
    if (typeof host === 'string' && typeof pid === 'number' && typeof id === 'string') {
      return { host, pid, id };
    }
  } catch {
    // a holder between create and write, or not our file
  }
  return undefined;
}
