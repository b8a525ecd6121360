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
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { cacheKey } from './chart-cache.js';
import type { ChartSourceContext } from './chart-source-context.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';

interface ChartSubject {
  /** The repository URL or `oci://` reference, as normalized for the chart cache. */
  source: string;
  /** `host[:port]` the source's credentials would be for. */
  host: string;
  chart: string;
  /** The version, range or digest asked for; empty for "latest". */
  version: string;
}

const RememberedRecord = z.object({
  /** The error's words, without the `chart unavailable: ` every one starts with. */
  detail: z.string(),
  failedAt: z.number(),
  until: z.number(),
});
type Remembered = z.infer<typeof RememberedRecord>;

/**
 * Runs `fetch` unless a failure of the same fetch is remembered and still fresh (then its
 * error again); remembers a ChartUnavailableError it throws (adding when, and until
 * when, to its words), forgets one it outlives.
 */
export async function withUnavailableMemory<T>(
  subject: ChartSubject,
  ctx: ChartSourceContext,
  fetch: () => Promise<T>,
): Promise<T> {
  const ttlMs = ctx.network?.unavailableTtlMs ?? 0;
  if (ctx.offline || ttlMs <= 0) return fetch();
  const file = join(ctx.cacheDir, 'unavailable', `${memoryKey(subject, ctx)}.json`);
  if (!ctx.network?.retryUnavailable) {
    const known = await recall(file);
    const now = Date.now();
    if (known && known.failedAt <= now && now < known.until) throw rememberedError(known);
  }
  try {
    const result = await fetch();
    await rm(file, { force: true });
    return result;
  } catch (err) {
    if (!(err instanceof ChartUnavailableError) || err.notCached) throw err;
    const failedAt = Date.now();
    const record = { detail: detailOf(err), failedAt, until: failedAt + ttlMs };
    await remember(file, record);
    throw rememberedError(record, err);
  }
}

function memoryKey(subject: ChartSubject, ctx: ChartSourceContext): string {
  const { source, host, chart, version } = subject;
  return cacheKey(['unavailable', source, chart, version, credentialIdentity(host, ctx)]);
}

/**
 * Which credentials the fetch was made with: none, or the entry for the host by its login
 * name. Never a secret, not even hashed (a file name is no place for a password's
 * digest), so a changed password alone is tried again when the memory runs out.
 */
function credentialIdentity(host: string, ctx: ChartSourceContext): string {
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
function rememberedError(known: Remembered, cause?: unknown): ChartUnavailableError {
  return new ChartUnavailableError(
    `${known.detail} (failed at ${clock(known.failedAt)}; remembered, not tried again ` +
      `before ${clock(known.until)})`,
    cause === undefined ? undefined : { cause },
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
