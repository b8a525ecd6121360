import type { Redis } from 'ioredis';

/** JobContext.isCurrent for the Redis adapter: asks Redis, so it is right across machines. */
export function createCurrentCheck(
  redis: Redis,
  pullKey: string,
  jobId: string,
  signal: AbortSignal,
): () => Promise<boolean> {
  return async () => !signal.aborted && (await redis.hget(pullKey, 'current')) === jobId;
}
