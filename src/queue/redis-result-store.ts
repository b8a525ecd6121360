import type { Redis } from 'ioredis';
import { z } from 'zod';
import { CommitSha } from './commit-sha.js';
import type { RedisKeys } from './redis-keys.js';
import type { ResultStore } from './types.js';

/**
 * The latest result per PR in one hash (head SHA and result JSON, written together), the
 * only key a result has. Each write restarts its expiry (FLUXLENS_RESULT_TTL_DAYS), so a
 * result goes that long after its PR's last review; without a TTL it is kept forever.
 */
export function createRedisResultStore(
  redis: Redis,
  keys: RedisKeys,
  ttlSeconds?: number,
): ResultStore {
  return {
    async put(pull, headSha, resultJson) {
      const key = keys.result(pull);
      const write = redis.multi().hset(key, { headSha: CommitSha.parse(headSha), resultJson });
      if (ttlSeconds === undefined) write.persist(key);
      else write.expire(key, ttlSeconds);
      await write.exec();
    },
    async get(pull) {
      const [headSha, resultJson] = await redis.hmget(keys.result(pull), 'headSha', 'resultJson');
      if (headSha === null || resultJson === null) return undefined;
      return { headSha: CommitSha.parse(headSha), resultJson: z.string().parse(resultJson) };
    },
    async has(pull, headSha) {
      return (await redis.hget(keys.result(pull), 'headSha')) === headSha;
    },
  };
}
