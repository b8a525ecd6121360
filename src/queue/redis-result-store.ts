import type { Redis } from 'ioredis';
import { z } from 'zod';
import { CommitShaSchema } from './commit-sha-schema.js';
import type { RedisKeys } from './redis-keys.js';
import type { ResultStore } from './types.js';

/**
 * The latest result per PR in one hash (head SHA and result JSON, written together).
 * No expiry unless asked: a quiet PR's result must still be there when someone looks.
 */
export function createRedisResultStore(
  redis: Redis,
  keys: RedisKeys,
  ttlSeconds?: number,
): ResultStore {
  return {
    async put(pull, headSha, resultJson) {
      const key = keys.result(pull);
      const write = redis
        .multi()
        .hset(key, { headSha: CommitShaSchema.parse(headSha), resultJson });
      if (ttlSeconds === undefined) write.persist(key);
      else write.expire(key, ttlSeconds);
      await write.exec();
    },
    async get(pull) {
      const [headSha, resultJson] = await redis.hmget(keys.result(pull), 'headSha', 'resultJson');
      if (headSha === null || resultJson === null) return undefined;
      return { headSha: CommitShaSchema.parse(headSha), resultJson: z.string().parse(resultJson) };
    },
    async has(pull, headSha) {
      return (await redis.hget(keys.result(pull), 'headSha')) === headSha;
    },
  };
}
