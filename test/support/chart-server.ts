/**
 * A Helm chart repository for tests: a node:http server on 127.0.0.1 (ephemeral port)
 * serving the files of one folder, plus the redirects a test registers (to a path of its
 * own or to a URL of another server). It records every request path, and the
 * Authorization header each one carried, so tests can assert what was fetched, that
 * nothing was, and who was sent credentials. Optionally it speaks TLS (see tls.ts) and
 * asks for a Basic login, answering 401 without one. Build the folder's content with the
 * helpers in chart-repo.ts.
 */
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';

export interface ChartServerOptions {
  /** Answer 401 to any request without this login. */
  basicAuth?: { username: string; password: string };
  /** Serve https with this certificate (and `url` is https://). */
  tls?: { key: string; cert: string };
}

export interface SeenRequest {
  path: string;
  authorization?: string;
}

export interface ChartServer {
  /** `http://127.0.0.1:PORT` (https with `tls`; no trailing slash). */
  url: string;
  root: string;
  /** Request paths (with query), in arrival order. */
  readonly requests: string[];
  /** Every request with the Authorization header it carried, in arrival order. */
  readonly seen: SeenRequest[];
  clearRequests(): void;
  /** Answers every path under `fromPrefix` with a 302 to `toPrefix` + the rest. */
  redirect(fromPrefix: string, toPrefix: string): void;
  close(): Promise<void>;
}

export async function startChartServer(
  root: string,
  options: ChartServerOptions = {},
): Promise<ChartServer> {
  const requests: string[] = [];
  const seen: SeenRequest[] = [];
  const redirects = new Map<string, string>();
  const login = options.basicAuth
    ? `Basic ${Buffer.from(`${options.basicAuth.username}:${options.basicAuth.password}`).toString('base64')}`
    : undefined;
  const listener: RequestListener = (req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const authorization = req.headers.authorization;
    seen.push(authorization === undefined ? { path } : { path, authorization });
    if (login !== undefined && authorization !== login) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="charts"' }).end();
      return;
    }
    const pathname = decodeURIComponent(path.split('?')[0] ?? '/');
    for (const [from, to] of redirects) {
      if (pathname.startsWith(from)) {
        res.writeHead(302, { location: `${to}${pathname.slice(from.length)}` }).end();
        return;
      }
    }
    const file = normalize(join(root, pathname));
    if (req.method !== 'GET' || !file.startsWith(root + sep)) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-length': body.length }).end(body),
      () => res.writeHead(404).end('not found'),
    );
  };
  const server: Server = options.tls
    ? createHttpsServer(options.tls, listener)
    : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    root,
    requests,
    seen,
    clearRequests: () => {
      requests.splice(0);
      seen.splice(0);
    },
    redirect: (from, to) => redirects.set(from, to),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
