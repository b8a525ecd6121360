/**
 * Charts that could not be fetched, remembered for a while: a registry that is down, or
 * a private chart without credentials, would otherwise be tried again by every render of
 * every pull request, each time waiting for the same failure. A failed fetch is written
 * beside the chart cache,
 *
 *   <cacheDir>/unavailable/<key>.json   what failed, when, and until when it is believed
 *
 * so that the next render, in this process or the next (the next PR on the worker, the
 * next CLI run), reports the same chart-unavailable error at once, saying when it failed
 * and until when it is remembered. key = sha256 of (source URL, chart, version as asked, the
 * identity of the credentials the operator's file holds for the source's host): an entry
 * added for the host, or another login, asks again; no secret is part of the key. A fetch that succeeds
 * forgets the failure. Offline renders never fetch, so they neither read nor write here.
 * The error carries the record, so that a render kept with it (render/builtin/reuse/) is
 * read back only while the memory still holds that same record (stillRemembered).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { cacheKey } from './chart-cache.js';
import type { ChartSourceContext } from './chart-source-context.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import type { ChartSubject, RememberedChart } from './remembered-chart.js';

const RememberedRecord = z.object({
  /** The error's words, without the `chart unavailable: ` every one starts with. */
  detail: z.string(),
  failedAt: z.number(),
  until: z.number(),
});
type Remembered = z.infer<typeof RememberedRecord>;

/**
 * The fetches under way in this process, by memory file, each settling with the failure it
 * remembered (or nothing): releases sharing a chart start together once their
 * Kustomizations are taken from the cache, and each would otherwise fail on its own and
 * remember a failure of its own time, so that the memory and the renders that reported
 * the others disagree. An entry lives only while its fetch runs.
 */
const underway = new Map<string, Promise<Remembered | undefined>>();

/**
 * Runs `fetch` unless a failure of the same fetch is remembered and still fresh (then its
 * error again), or one is under way in this process (then its failure, or a fetch of its
 * own once it succeeded); remembers a ChartUnavailableError it throws
 * (adding when, and until when, to its words), forgets one it outlives.
 */
export async function withUnavailableMemory<T>(
  subject: ChartSubject,
  ctx: ChartSourceContext,
  fetch: () => Promise<T>,
): Promise<T> {
  const ttlMs = ctx.network?.unavailableTtlMs ?? 0;
  if (ctx.offline || ttlMs <= 0) return fetch();
  const file = join(ctx.cacheDir, 'unavailable', `${memoryKey(subject, ctx)}.json`);
  const leader = underway.get(file);
  if (leader !== undefined) {
    // Asked again or not, the fetch under way is this render's asking.
    const failed = await leader;
    if (failed && fresh(failed)) throw rememberedError(subject, failed);
  }
  let settle: (failed: Remembered | undefined) => void = () => undefined;
  // After a fetch that succeeded, the others run side by side, as without the memory.
  const mine = underway.has(file)
    ? undefined
    : new Promise<Remembered | undefined>((resolve) => (settle = resolve));
  if (mine) underway.set(file, mine);
  try {
    if (!ctx.network?.retryUnavailable) {
      const known = await recall(file);
      if (known && fresh(known)) {
        settle(known);
        throw rememberedError(subject, known);
      }
    }
    const result = await fetch();
    await rm(file, { force: true });
    return result;
  } catch (err) {
    if (!(err instanceof ChartUnavailableError) || err.notCached || err.remembered) throw err;
    const failedAt = Date.now();
    const record = { detail: detailOf(err), failedAt, until: failedAt + ttlMs };
    await remember(file, record);
    settle(record);
    throw rememberedError(subject, record, err);
  } finally {
    settle(undefined);
    if (mine && underway.get(file) === mine) underway.delete(file);
  }
}

/**
 * Whether a render with these settings would report `remembered` again, word for word,
 * without asking the network: the memory is on, not bypassed, and holds that very failure
 * (not a later one, nor none since a fetch succeeded), still believed. The credentials
 * are the ones configured now: a login added for the host is asked with.
 */
export async function stillRemembered(
  remembered: RememberedChart,
  ctx: Pick<ChartSourceContext, 'cacheDir' | 'offline' | 'network'>,
): Promise<boolean> {
  const ttlMs = ctx.network?.unavailableTtlMs ?? 0;
  if (ctx.offline || ttlMs <= 0 || ctx.network?.retryUnavailable) return false;
  const file = join(ctx.cacheDir, 'unavailable', `${memoryKey(remembered.subject, ctx)}.json`);
  const known = await recall(file);
  return (
    known !== undefined &&
    known.failedAt === remembered.failedAt &&
    known.until === remembered.until &&
    fresh(known)
  );
}

function fresh(known: Remembered): boolean {
  const now = Date.now();
  return known.failedAt <= now && now < known.until;
}

function memoryKey(subject: ChartSubject, ctx: Pick<ChartSourceContext, 'network'>): string {
  const { source, host, chart, version } = subject;
  return cacheKey(['unavailable', source, chart, version, credentialIdentity(host, ctx)]);
}

/**
 * Which credentials the fetch was made with: none, or the entry for the host by its login
 * name. Never a secret, not even hashed (a file name is no place for a password's
 * digest), so a changed password alone is tried again when the memory runs out.
 */
function credentialIdentity(host: string, ctx: Pick<ChartSourceContext, 'network'>): string {
  const credential = ctx.network?.credentials?.forHost(host);
  if (!credential) return 'none';
  const { secret } = credential;
  const who = secret.kind === 'basic' ? secret.username : '';
  return JSON.stringify([credential.host, credential.plainHttp, secret.kind, who]);
}

const PREFIX = 'chart unavailable: ';

function detailOf(err: ChartUnavailableError): string {
  return err.message.startsWith(PREFIX) ? err.message.slice(PREFIX.length) : err.message;
}

/**
 * The failure with when it happened and until when it is believed: the same words the
 * first time and every time it is remembered, so that a review whose base and head both
 * miss the chart shows one error, and a reader sees why the network was not asked.
 */
function rememberedError(
  subject: ChartSubject,
  known: Remembered,
  cause?: unknown,
): ChartUnavailableError {
  const { failedAt, until } = known;
  const remembered = { subject, failedAt, until };
  return new ChartUnavailableError(
    `${known.detail} (failed at ${clock(failedAt)}; remembered, not tried again ` +
      `before ${clock(until)})`,
    cause === undefined ? { remembered } : { cause, remembered },
  );
}

/** `HH:MM:SS UTC`: the memory lasts minutes, so the time of day says enough. */
function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

async function recall(file: string): Promise<Remembered | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = RememberedRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole or not at all, like the chart cache's refs; a failure to write is no error. */
async function remember(file: string, record: Remembered): Promise<void> {
  const dir = join(file, '..');
  const tmp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(tmp, `${JSON.stringify(record)}\n`);
    await rename(tmp, file);
  } catch {
    await rm(tmp, { force: true });
  }
}
