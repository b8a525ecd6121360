/**
 * HTTP(S) downloads of chart repository files: a bound on connecting, on the first byte of
 * the answer and on the whole transfer, a size cap enforced while reading, no credentials,
 * the address policy of chart-network.ts on every connection, and redirects followed by
 * hand so each hop is checked. A redirect may stay within its origin (scheme, host and
 * port), or go from https to https elsewhere: chart archives listed on GitHub releases
 * answer with a redirect to a CDN, and refusing that would make common charts
 * unreachable. It may not go to plain http on another origin, from https to http, or carry
 * credentials, and at most MAX_REDIRECTS times.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import { DEFAULT_CHART_NETWORK, type ChartNetwork } from '../engine.js';
import { checkHostLiteral, checkedLookup } from './chart-network.js';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  network?: ChartNetwork;
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
    const status = response.statusCode ?? 0;
    if (!REDIRECT_STATUSES.has(status)) {
      if (status < 200 || status > 299) {
        response.destroy();
        const detail = `${what}: ${describeUrl(current)} answered HTTP ${status}`;
        throw unavailableStatus(status)
          ? new ChartUnavailableError(detail)
          : new ChartContentError(detail);
      }
      return readCapped(response, current, limits, what, signal);
    }
    response.destroy();
    current = nextHop(current, response.headers.location, hop, what);
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

/**
 * One GET: resolves with the response once its status line arrived. Connecting and the
 * first byte each have their own bound; `signal` bounds the whole download.
 */
function get(
  url: URL,
  signal: AbortSignal,
  limits: FetchLimits,
  what: string,
): Promise<IncomingMessage> {
  const network = limits.network ?? DEFAULT_CHART_NETWORK;
  checkHostLiteral(url.hostname, network, what);
  const lookup = checkedLookup(network, what);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const fail = (err: unknown) => {
      clearTimeout(timer);
      reject(
        err instanceof ChartUnavailableError
          ? err
          : new ChartUnavailableError(
              `${what}: cannot fetch ${describeUrl(url)}: ${networkReason(err, limits)}`,
              { cause: err },
            ),
      );
    };
    const req = send(url, {
      method: 'GET',
      headers: { accept: '*/*' },
      signal,
      ...(lookup ? { lookup } : {}),
    });
    const stall = (ms: number, reason: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => req.destroy(new StallError(`${reason} within ${ms} ms`)), ms);
    };
    stall(network.connectTimeoutMs, 'no connection');
    req.once('socket', (socket) => {
      const connected = () => stall(network.responseTimeoutMs, 'no response');
      if (!socket.connecting) connected();
      else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    req.once('response', (response) => {
      clearTimeout(timer);
      resolve(response);
    });
    req.once('error', fail);
    req.end();
  });
}

/** A connection or answer that did not come in time (the message says which). */
class StallError extends Error {
  override name = 'StallError';
}

function nextHop(from: URL, location: string | undefined, hop: number, what: string): URL {
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
  if (to.origin !== from.origin && to.protocol !== 'https:') {
    throw new ChartUnavailableError(
      `${what}: ${describeUrl(from)} redirects outside its origin to plain http`,
    );
  }
  if (to.username || to.password) {
    throw new ChartUnavailableError(
      `${what}: ${describeUrl(from)} redirects to a URL with credentials`,
    );
  }
  return to;
}

async function readCapped(
  response: IncomingMessage,
  url: URL,
  limits: FetchLimits,
  what: string,
  signal: AbortSignal,
): Promise<Buffer> {
  const tooBig = () =>
    new ChartUnavailableError(
      `${what}: ${describeUrl(url)} is larger than ${limits.maxBytes} bytes`,
    );
  const declared = Number(response.headers['content-length'] ?? NaN);
  if (declared > limits.maxBytes) {
    response.destroy();
    throw tooBig();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response) {
      const bytes = chunk as Buffer;
      total += bytes.byteLength;
      if (total > limits.maxBytes) throw tooBig();
      chunks.push(bytes);
    }
  } catch (err) {
    response.destroy();
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
  if (err instanceof StallError) return err.message;
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `timed out after ${limits.timeoutMs} ms`;
  }
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.message : String(err);
}
