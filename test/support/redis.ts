/**
 * A real Redis for tests: `startRedis()` runs `redis-server` on a free loopback port with
 * a temp data dir (no RDB snapshots, AOF on, so `restart()` comes back with the data), or
 * uses FLUXLENS_TEST_REDIS_URL when set. Tests share one server and keep apart by a
 * unique key prefix each (`uniquePrefix()`), deleted afterwards with `deleteKeys()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';

export interface TestRedis {
  url: string;
  /** False for FLUXLENS_TEST_REDIS_URL: that server is not ours to restart. */
  canRestart: boolean;
  /**
   * Stops and starts the same server on the same port and data dir (the append-only file
   * brings the data back). `whileDown` runs in between, against a port nobody answers on.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;

export async function startRedis(): Promise<TestRedis> {
  const external = process.env.FLUXLENS_TEST_REDIS_URL;
  if (external) {
    return {
      url: external,
      canRestart: false,
      restart: () => Promise.reject(new Error('cannot restart FLUXLENS_TEST_REDIS_URL')),
      stop: () => Promise.resolve(),
    };
  }
  const binary = findRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'fluxlens-redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir];
  args.push('--save', '', '--appendonly', 'yes', '--daemonize', 'no', '--logfile', '');
  let child = await launch(binary, args, port);
  return {
    url: `redis://127.0.0.1:${port}`,
    canRestart: true,
    async restart(whileDown) {
      await terminate(child);
      try {
        await whileDown?.();
      } finally {
        child = await launch(binary, args, port);
      }
    },
    async stop() {
      await terminate(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisServerOptions {
  /** redis-server arguments beyond port, address and data dir: passwords, ACL users, TLS. */
  args?: string[];
  /** The port (a free one when absent), for a test that reserves it before Redis is up. */
  port?: number;
  /** Serve TLS only, on the port, with this certificate and key. */
  tls?: { certFile: string; keyFile: string };
}

export interface RedisServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * A redis-server of a test's own, for what the shared one does not do: a password, ACL
 * users, TLS, or coming up late. Ready once it logs that it accepts connections (a PING
 * would need its password or its TLS).
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = findRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'fluxlens-redis-'));
  const port = options.port ?? (await freePort());
  const listen = options.tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', options.tls.certFile]
    : ['--port', String(port)];
  if (options.tls) {
    listen.push('--tls-key-file', options.tls.keyFile, '--tls-auth-clients', 'no');
  }
  const args = [...listen, '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--logfile', ''];
  const child = await launch(binary, [...args, ...(options.args ?? [])], port, (output) =>
    Promise.resolve(output.includes('Ready to accept connections')),
  );
  return {
    port,
    async stop() {
      await terminate(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `fluxlens-test-<random>`: letters, digits and dashes only, so it is safe in a SCAN glob. */
export function uniquePrefix(): string {
  return `fluxlens-test-${randomBytes(6).toString('hex')}`;
}

/** Deletes every key under the prefix, so the suite passes again against the same Redis. */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

function findRedisServer(): string {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const dir of [...dirs, '/usr/bin', '/usr/local/bin']) {
    const candidate = join(dir, 'redis-server');
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('redis-server not found: run scripts/install-tools redis-server');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function launch(
  binary: string,
  args: string[],
  port: number,
  ready: (output: string) => Promise<boolean> = () => answersPing(port),
): Promise<ChildProcess> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (await ready(output)) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer PING on port ${port}:\n${output}`);
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
