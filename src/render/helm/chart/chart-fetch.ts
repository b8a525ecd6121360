/**
 * HTTP(S) downloads of chart repository files: a bound on connecting, on the first byte of
 * the answer and on the whole transfer (chart-request.ts), a size cap enforced while
 * reading, the address policy on every connection, and redirects followed by hand so each
 * hop is checked. A redirect may stay within its origin (scheme, host and port), or go
 * from https to https elsewhere: chart archives listed on GitHub releases answer with a
 * redirect to a CDN, and refusing that would make common charts unreachable. It may not go
 * to plain http on another origin, from https to http, or to a URL with credentials, and
 * at most MAX_REDIRECTS times.
 *
 * Each hop is a new request and carries only its own host's credentials from the
 * operator's file (registry-credentials.ts): a redirect to another host drops them.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import { DEFAULT_CHART_NETWORK, type ChartNetwork } from '../../settings.js';
import {
  bound,
  describeUrl,
  safeUrl,
  sendChartRequest,
  type ChartRequestInit,
} from './chart-request.js';
import { credentialNote, ownAuthorization } from './registry-credentials.js';

export { describeUrl } from './chart-request.js';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  network?: ChartNetwork;
}

export interface ChartFetchInit extends ChartRequestInit {
  /**
   * The Authorization header of a hop to `url`, or none; by default the hop's own host's
   * login from the operator's file. An OCI registry's token goes to its own host only.
   */
  authorize?: (url: URL) => string | undefined;
  /** Bytes of a non-2xx body kept (for a proxy to pass on); 0 reads none. */
  errorBodyBytes?: number;
}

export interface ChartResponse {
  /** The URL that answered, after redirects. */
  url: URL;
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Whether the request that answered carried an Authorization header. */
  authorized: boolean;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

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
  const response = await fetchChartResponse(url, limits, what, { errorBodyBytes: 0 });
  const { status } = response;
  if (status >= 200 && status <= 299) return response.body;
  const note = credentialNote(response.url, limits.network, response.authorized);
  const detail = `${what}: ${describeUrl(response.url)} answered HTTP ${status}${note ? ` (${note})` : ''}`;
  throw unavailableStatus(status)
    ? new ChartUnavailableError(detail)
    : new ChartContentError(detail);
}

/**
 * Statuses that say nothing about what the repository names: credentials (401, 403, 407),
 * a busy or failing server (408, 429, 5xx). Any other (404, 410) is a reachable server
 * saying the URL the repository names is not there, which Flux would fail on too.
 */
export function unavailableStatus(status: number): boolean {
  return [401, 403, 407, 408, 429].includes(status) || status >= 500;
}

/** Sends `init` to `url`, following checked redirects, and answers whatever status came. */
export async function fetchChartResponse(
  url: URL,
  limits: FetchLimits,
  what: string,
  init: ChartFetchInit = {},
): Promise<ChartResponse> {
  const network = limits.network ?? DEFAULT_CHART_NETWORK;
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const authorize = init.authorize ?? ((hop: URL) => ownAuthorization(hop, network));
  let current = url;
  for (let hop = 0; ; hop++) {
    const authorization = authorize(current);
    const headers = { ...init.headers, ...(authorization ? { authorization } : {}) };
    const request = { ...init, headers };
    const response = await sendChartRequest(
      current,
      request,
      network,
      signal,
      limits.timeoutMs,
      what,
    );
    const status = response.statusCode ?? 0;
    // A body cannot follow a redirect: only requests without one are redirected.
    if (REDIRECT_STATUSES.has(status) && init.body === undefined) {
      response.destroy();
      current = nextHop(current, response.headers.location, hop, what);
      continue;
    }
    const ok = status >= 200 && status <= 299;
    const cap = ok ? limits.maxBytes : (init.errorBodyBytes ?? 0);
    const body =
      init.method === 'HEAD' || cap === 0
        ? (response.destroy(), Buffer.alloc(0))
        : await readCapped(response, current, { ...limits, maxBytes: cap }, what, signal, ok);
    return { url: current, status, headers: response.headers, body, authorized: !!authorization };
  }
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

/**
 * The body, up to `limits.maxBytes`: past it a wanted body is an error, an error body
 * (`strict` false) is cut short. A server that sends the headers and then nothing for the
 * response bound fails then, as one that never answers does, not at the whole timeout.
 */
async function readCapped(
  response: IncomingMessage,
  url: URL,
  limits: FetchLimits,
  what: string,
  signal: AbortSignal,
  strict: boolean,
): Promise<Buffer> {
  const tooBig = () =>
    new ChartUnavailableError(
      `${what}: ${describeUrl(url)} is larger than ${limits.maxBytes} bytes`,
    );
  const declared = Number(response.headers['content-length'] ?? NaN);
  if (strict && declared > limits.maxBytes) {
    response.destroy();
    throw tooBig();
  }
  const idleMs = (limits.network ?? DEFAULT_CHART_NETWORK).responseTimeoutMs;
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const idle = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      response.destroy();
    }, idleMs);
  };
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    idle();
    for await (const chunk of response) {
      idle();
      const bytes = chunk as Buffer;
      if (total + bytes.byteLength > limits.maxBytes) {
        if (strict) throw tooBig();
        chunks.push(bytes.subarray(0, limits.maxBytes - total));
        response.destroy();
        break;
      }
      total += bytes.byteLength;
      chunks.push(bytes);
    }
    // A destroyed response can end the loop without an error.
    if (stalled) throw new Error('stalled');
  } catch (err) {
    response.destroy();
    if (err instanceof ChartUnavailableError) throw err;
    const reason = stalled
      ? `${url.host} stopped sending for ${bound(idleMs)}`
      : signal.aborted
        ? `timed out after ${bound(limits.timeoutMs)}`
        : 'the transfer failed';
    throw new ChartUnavailableError(`${what}: reading ${describeUrl(url)}: ${reason}`, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks);
}
