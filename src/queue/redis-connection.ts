import { Redis, type RedisOptions } from 'ioredis';
import { CREDENTIAL_MARKER } from '../redact/index.js';

/**
 * Where Redis is: a redis:// or rediss:// URL (a password and a user name go in the URL),
 * with the certificate authorities a rediss:// server's certificate is checked against
 * when they are not the system's.
 */
export interface RedisEndpoint {
  url: string;
  /** PEM; only used with rediss://. */
  ca?: string;
}

/** A URL, an endpoint, or an ioredis client the caller keeps owning. */
export type RedisConnection = string | RedisEndpoint | Redis;

/**
 * A client of our own: a URL is opened, a caller's client is duplicated, so closing the
 * queue or the worker never closes a client someone else still uses. BullMQ duplicates
 * the client it is given, so its connections carry the same password and TLS settings.
 */
export function openRedis(connection: RedisConnection, options: RedisOptions = {}): Redis {
  const client = clientFor(connection, options);
  // ioredis puts a failed command's arguments on its error, AUTH's password included, and
  // rejects every queued command with that same error object. The first listener runs
  // before any of those rejections is handled, so nothing ever sees the password.
  client.prependListener('error', scrubAuthArguments);
  return client;
}

function clientFor(connection: RedisConnection, options: RedisOptions): Redis {
  if (typeof connection === 'string') return new Redis(connection, options);
  if (connection instanceof Redis) return connection.duplicate(options);
  const tls = connection.ca !== undefined && connection.url.startsWith('rediss://');
  return new Redis(connection.url, tls ? { ...options, tls: { ca: connection.ca } } : options);
}

function scrubAuthArguments(err: unknown): void {
  const command: unknown = err instanceof Error && 'command' in err ? err.command : undefined;
  if (typeof command !== 'object' || command === null || !('name' in command)) return;
  if (String(command.name).toLowerCase() === 'auth' && 'args' in command) {
    command.args = [CREDENTIAL_MARKER];
  }
}

/**
 * Closes our client: politely when connected, at once otherwise (a QUIT sent while
 * reconnecting would wait out every retry before failing).
 */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}

/** Bounds the wait for a dropped connection attempt to settle. */
const UNREADY_END_WAIT_MS = 2_000;

/**
 * Ends a client that never got ready, before BullMQ is closed over it: BullMQ still waits
 * for it to connect, and that wait must fail while BullMQ listens for its error (after
 * close() it has no listener, and the rejection would go unhandled). Between retries
 * there is no connection, so that wait never settles and nothing is left to await.
 */
export async function endUnready(client: Redis, bullmqWait: () => Promise<unknown>): Promise<void> {
  if (client.status === 'ready' || client.status === 'end') return;
  const connecting = client.status === 'connecting' || client.status === 'connect';
  client.disconnect();
  if (!connecting) return;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise((resolve) => {
    timer = setTimeout(resolve, UNREADY_END_WAIT_MS);
  });
  await Promise.race([bullmqWait().catch(() => undefined), bound]);
  clearTimeout(timer);
}
