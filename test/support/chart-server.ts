/**
 * A Helm chart repository for tests: a node:http server on 127.0.0.1 (ephemeral port)
 * serving the files of one folder, plus the redirects a test registers. It records
 * every request path, so tests can assert what was fetched and that nothing was.
 * Build the folder's content with the helpers in chart-repo.ts.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';

export interface ChartServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  root: string;
  /** Request paths (with query), in arrival order. */
  readonly requests: string[];
  clearRequests(): void;
  /** Answers every path under `fromPrefix` with a 302 to `toPrefix` + the rest. */
  redirect(fromPrefix: string, toPrefix: string): void;
  close(): Promise<void>;
}

export async function startChartServer(root: string): Promise<ChartServer> {
  const requests: string[] = [];
  const redirects = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
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
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    root,
    requests,
    clearRequests: () => requests.splice(0),
    redirect: (from, to) => redirects.set(from, to),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
