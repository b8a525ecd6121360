/**
 * One HTTP(S) request of a chart download, without following anything: separate bounds on
 * connecting and on the first byte of the answer, and the address policy of
 * chart-network.ts on the connection. A host with an entry in the operator's registry
 * credentials file is the operator's own, so the address policy does not apply to it: a
 * registry on the home network needs no FLUXLENS_CHART_PRIVATE_ADDRESSES=allow, which
 * would open every private address to what a pull request names.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import type { ChartNetwork } from '../../settings.js';
import { checkHostLiteral, checkedLookup } from './chart-network.js';

export interface ChartRequestInit {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  /** Sent as is; the caller sets content-type. */
  body?: string;
}

/** The URL as messages may show it: no user info, no query string, no fragment. */
export function describeUrl(url: URL | string): string {
  const u = typeof url === 'string' ? safeUrl(url) : url;
  return u ? `${u.protocol}//${u.host}${u.pathname}` : '(invalid URL)';
}

export function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Resolves with the response once its status line arrived. `signal` bounds the whole
 * exchange; `timeoutMs` only words its message.
 */
export function sendChartRequest(
  url: URL,
  init: ChartRequestInit,
  network: ChartNetwork,
  signal: AbortSignal,
  timeoutMs: number,
  what: string,
): Promise<IncomingMessage> {
  const own = network.credentials?.forHost(url.host) !== undefined;
  if (!own) checkHostLiteral(url.hostname, network, what);
  const lookup = own ? undefined : checkedLookup(network, what);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const fail = (err: unknown) => {
      clearTimeout(timer);
      reject(
        err instanceof ChartUnavailableError
          ? err
          : new ChartUnavailableError(
              `${what}: cannot fetch ${describeUrl(url)}: ${networkReason(err, url, timeoutMs)}`,
              { cause: err },
            ),
      );
    };
    const req = send(url, {
      method: init.method ?? 'GET',
      headers: { accept: '*/*', ...init.headers },
      signal,
      ...(lookup ? { lookup } : {}),
    });
    const stall = (ms: number, reason: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => req.destroy(new StallError(`${reason} within ${bound(ms)}`)), ms);
    };
    stall(network.connectTimeoutMs, `${url.host} did not accept a connection`);
    req.once('socket', (socket) => {
      const connected = () => stall(network.responseTimeoutMs, `${url.host} did not answer`);
      if (!socket.connecting) connected();
      else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    req.once('response', (response) => {
      clearTimeout(timer);
      resolve(response);
    });
    req.once('error', fail);
    req.end(init.body);
  });
}

/** A connection or answer that did not come in time (the message says which). */
class StallError extends Error {
  override name = 'StallError';
}

/** A bound as messages show it: whole seconds as `30 s`, anything else in ms. */
export function bound(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * Why a request got no answer, naming the host: a name that does not resolve and a refused
 * connection are said as such, since they fail at once and are what an unreachable
 * registry mostly looks like.
 */
function networkReason(err: unknown, url: URL, timeoutMs: number): string {
  if (err instanceof StallError) return err.message;
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `timed out after ${bound(timeoutMs)}`;
  }
  const code = (err as { code?: unknown } | undefined)?.code;
  switch (code) {
    case 'ENOTFOUND':
      return `${url.hostname} does not resolve (ENOTFOUND)`;
    case 'EAI_AGAIN':
      return `the DNS lookup of ${url.hostname} failed (EAI_AGAIN)`;
    case 'ECONNREFUSED':
      return `${url.host} refused the connection (ECONNREFUSED)`;
    case 'ECONNRESET':
      return `${url.host} closed the connection (ECONNRESET)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${url.host} cannot be reached (${code})`;
  }
  if (typeof code === 'string') return `${url.host}: ${code}`;
  return err instanceof Error ? err.message : String(err);
}
