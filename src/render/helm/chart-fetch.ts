/**
 * HTTP(S) downloads of chart repository files: a time limit for the whole transfer, a
 * size cap enforced while reading, no credentials, and redirects followed by hand so
 * each hop is checked. Redirects may change host, as helm's and source-controller's
 * getters allow (chart archives on GitHub releases redirect to a CDN), but only to
 * http(s), never from https down to http, and at most MAX_REDIRECTS times.
 */
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The URL as messages may show it: no user info, no query string, no fragment. */
export function describeUrl(url: URL | string): string {
  const u = typeof url === 'string' ? safeUrl(url) : url;
  return u ? `${u.protocol}//${u.host}${u.pathname}` : '(invalid URL)';
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * An http(s) URL without embedded credentials. Flux fails on a URL that is not http(s)
 * too (a ChartContentError); credentials are ones fluxlens will not use (unavailable).
 */
export function httpUrl(text: string, what: string): URL {
  const url = safeUrl(text);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ChartContentError(`${what}: '${describeUrl(text)}' is not an http(s) URL`);
  }
  if (url.username || url.password) {
    throw new ChartUnavailableError(
      `${what}: ${describeUrl(url)} carries credentials in the URL, which fluxlens does not use`,
    );
  }
  return url;
}

/** GETs `url`, following checked redirects; the body, or a ChartUnavailableError. */
export async function fetchChartFile(url: URL, limits: FetchLimits, what: string): Promise<Buffer> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let current = url;
  for (let hop = 0; ; hop++) {
    const response = await get(current, signal, limits, what);
    if (!REDIRECT_STATUSES.has(response.status)) {
      if (!response.ok) {
        await response.body?.cancel();
        const detail = `${what}: ${describeUrl(current)} answered HTTP ${response.status}`;
        throw unavailableStatus(response.status)
          ? new ChartUnavailableError(detail)
          : new ChartContentError(detail);
      }
      return readCapped(response, current, limits, what, signal);
    }
    await response.body?.cancel();
    current = nextHop(current, response.headers.get('location'), hop, what);
  }
}

/**
 * Statuses that say nothing about what the repository names: credentials (401, 403, 407),
 * a busy or failing server (408, 429, 5xx). Any other (404, 410) is a reachable server
 * saying the URL the repository names is not there, which Flux would fail on too.
 */
function unavailableStatus(status: number): boolean {
  return [401, 403, 407, 408, 429].includes(status) || status >= 500;
}

async function get(url: URL, signal: AbortSignal, limits: FetchLimits, what: string) {
  try {
    return await fetch(url, { redirect: 'manual', signal, headers: { accept: '*/*' } });
  } catch (err) {
    throw new ChartUnavailableError(
      `${what}: cannot fetch ${describeUrl(url)}: ${networkReason(err, limits)}`,
      { cause: err },
    );
  }
}

function nextHop(from: URL, location: string | null, hop: number, what: string): URL {
  if (hop >= MAX_REDIRECTS) {
    throw new ChartUnavailableError(
      `${what}: more than ${MAX_REDIRECTS} redirects from ${describeUrl(from)}`,
    );
  }
  const to = location ? safeUrl(new URL(location, from).href) : undefined;
  if (!to || (to.protocol !== 'http:' && to.protocol !== 'https:')) {
    throw new ChartUnavailableError(
      `${what}: ${describeUrl(from)} redirects to a non-http(s) location`,
    );
  }
  if (from.protocol === 'https:' && to.protocol === 'http:') {
    throw new ChartUnavailableError(`${what}: ${describeUrl(from)} redirects from https to http`);
  }
  if (to.username || to.password) {
    throw new ChartUnavailableError(
      `${what}: ${describeUrl(from)} redirects to a URL with credentials`,
    );
  }
  return to;
}

async function readCapped(
  response: Response,
  url: URL,
  limits: FetchLimits,
  what: string,
  signal: AbortSignal,
): Promise<Buffer> {
  const tooBig = () =>
    new ChartUnavailableError(
      `${what}: ${describeUrl(url)} is larger than ${limits.maxBytes} bytes`,
    );
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limits.maxBytes) {
    await response.body?.cancel();
    throw tooBig();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body ?? []) {
      total += chunk.byteLength;
      if (total > limits.maxBytes) throw tooBig();
      chunks.push(Buffer.from(chunk));
    }
  } catch (err) {
    if (err instanceof ChartUnavailableError) throw err;
    const reason = signal.aborted
      ? `timed out after ${limits.timeoutMs} ms`
      : 'the transfer failed';
    throw new ChartUnavailableError(`${what}: reading ${describeUrl(url)}: ${reason}`, {
      cause: err,
    });
  }
  return Buffer.concat(chunks);
}

function networkReason(err: unknown, limits: FetchLimits): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `timed out after ${limits.timeoutMs} ms`;
  }
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  return err instanceof Error ? err.message : String(err);
}
