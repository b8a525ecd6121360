/**
 * A git smart-HTTP server for tests: node:http on 127.0.0.1 (ephemeral port) handing each
 * request to the real `git http-backend` (CGI) over the bare repositories under `root`.
 * It can demand a token the way GitHub does (Basic x-access-token:TOKEN), records every
 * request without the token, and can fail or hold the next requests.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';

export interface GitRequest {
  method: string;
  /** Path and query, e.g. `/acme/fleet.git/info/refs?service=git-upload-pack`. */
  path: string;
  /** What the Authorization header was: never the header itself. */
  authorization: 'absent' | 'valid' | 'invalid';
  status?: number;
  /** Positions on one counter shared by all starts and ends, to check overlap by order. */
  startedAt: number;
  endedAt?: number;
}

export interface HeldRequest {
  /** Resolves when the request arrives. */
  arrived: Promise<void>;
  /** Serves it normally; a request never released hangs until the server closes. */
  release(): void;
}

export interface GitServer {
  /** `http://127.0.0.1:PORT` (no trailing slash): pass as gitUrl. */
  url: string;
  root: string;
  readonly requests: readonly GitRequest[];
  /**
   * The next `count` requests are answered with `status` (default 502). With
   * `echoAuthorization`, the body reflects the request's Authorization header, as a
   * careless proxy might, to prove the client keeps it out of its errors.
   */
  failNext(count: number, options?: { status?: number; echoAuthorization?: boolean }): void;
  holdNext(): HeldRequest;
  /** The most requests that were in flight at once, from the log's order (not timing). */
  maxInFlight(): number;
  close(): Promise<void>;
}

/** Runs git with a minimal environment (no user or system config) and returns stdout. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: gitEnv(dir),
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

function gitEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '', HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
}

export function basicToken(token: string): string {
  return `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
}

/**
 * Pushes revisions of `workDir` to the bare repository `<root>/<owner>/<repo>.git`
 * (created on first use), forcing, as GitHub does for refs/pull/N/head:
 * `refs: { 'refs/heads/main': 'main', 'refs/pull/1/head': 'feature' }`.
 */
export function publish(
  root: string,
  target: { owner: string; repo: string; workDir: string; refs: Record<string, string> },
): string {
  const bare = join(root, target.owner, `${target.repo}.git`);
  if (!existsSync(bare)) {
    mkdirSync(dirname(bare), { recursive: true });
    execFileSync('git', ['init', '-q', '--bare', bare], { env: gitEnv(root) });
  }
  const specs = Object.entries(target.refs).map(([ref, rev]) => `+${rev}:${ref}`);
  git(target.workDir, 'push', '-q', bare, ...specs);
  return bare;
}

export async function startGitServer(options: {
  root: string;
  token?: string;
}): Promise<GitServer> {
  const requests: GitRequest[] = [];
  const failures: Array<{ status?: number; echoAuthorization?: boolean }> = [];
  const holds: Array<{ arrive: () => void; released: Promise<void> }> = [];
  const children = new Set<ChildProcess>();
  let tick = 0;

  const server = createServer((req, res) => {
    const record: GitRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      authorization: authorization(req, options.token),
      startedAt: tick++,
    };
    requests.push(record);
    res.on('finish', () => {
      record.status = res.statusCode;
      record.endedAt = tick++;
    });
    const hold = holds.shift();
    const go = (): void => {
      const failure = failures.shift();
      if (failure !== undefined) {
        const echo = failure.echoAuthorization ? `${req.headers.authorization ?? ''}\n` : '';
        res
          .writeHead(failure.status ?? 502, { 'content-type': 'text/plain' })
          .end(`injected failure\n${echo}`);
      } else if (options.token !== undefined && record.authorization !== 'valid') {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="test"' }).end();
      } else {
        serveCgi(options.root, req, res, children);
      }
    };
    if (!hold) return go();
    hold.arrive();
    void hold.released.then(go);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    root: options.root,
    requests,
    failNext(count, failure = {}) {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    holdNext() {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.push({ arrive, released });
      return { arrived, release };
    },
    maxInFlight() {
      const edges = requests.flatMap((r) => [
        { at: r.startedAt, step: 1 },
        { at: r.endedAt ?? Number.POSITIVE_INFINITY, step: -1 },
      ]);
      let current = 0;
      let most = 0;
      for (const edge of edges.sort((a, b) => a.at - b.at)) {
        current += edge.step;
        most = Math.max(most, current);
      }
      return most;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const child of children) child.kill('SIGKILL');
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function authorization(
  req: IncomingMessage,
  token: string | undefined,
): GitRequest['authorization'] {
  const header = req.headers.authorization;
  if (header === undefined) return 'absent';
  return token !== undefined && header === basicToken(token) ? 'valid' : 'invalid';
}

/** One CGI run of git http-backend: request body in, `Status:`/headers + body out. */
function serveCgi(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  children: Set<ChildProcess>,
): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const header = (name: string): string => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  const child = spawn('git', ['http-backend'], {
    env: {
      ...gitEnv(root),
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: header('content-type'),
      ...(req.headers['content-length'] ? { CONTENT_LENGTH: header('content-length') } : {}),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      GIT_PROTOCOL: header('git-protocol'),
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  children.add(child);
  child.on('close', () => children.delete(child));
  child.on('error', () => res.destroy());
  res.on('close', () => child.kill('SIGKILL'));
  child.stdin.on('error', () => undefined);
  req.pipe(child.stdin);

  let head = Buffer.alloc(0);
  let started = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (started) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = headerEnd(head);
    if (!end) return;
    started = true;
    const { status, headers } = parseCgiHeaders(head.subarray(0, end.at).toString('latin1'));
    res.writeHead(status, headers);
    res.write(head.subarray(end.at + end.length));
  });
  child.stdout.on('end', () => {
    if (!started) res.writeHead(502);
    res.end();
  });
}

function headerEnd(buffer: Buffer): { at: number; length: number } | undefined {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  return lf >= 0 ? { at: lf, length: 2 } : undefined;
}

function parseCgiHeaders(text: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers[name] = value;
  }
  return { status, headers };
}
