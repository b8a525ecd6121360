import { Redis, type RedisOptions } from 'ioredis';

/** A redis:// URL, or an ioredis client the caller keeps owning. */
export type RedisConnection = string | Redis;

/**
 * A client of our own: a URL is opened, a caller's client is duplicated, so closing the
 * queue or the worker never closes a client someone else still uses.
 */
export function openRedis(connection: RedisConnection, options: RedisOptions = {}): Redis {
  return typeof connection === 'string'
    ? new Redis(connection, options)
    : connection.duplicate(options);
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
