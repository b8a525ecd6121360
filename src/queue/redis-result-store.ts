import type { Redis } from 'ioredis';
import { z } from 'zod';
import { CommitSha } from './commit-sha.js';
import type { RedisKeys } from './redis-keys.js';
import { queueDefaults } from './queue-defaults.js';
import type { ResultStore, StoredReview } from './types.js';

/**
 * The latest result per PR in one hash (head SHA, result JSON and when, written together),
 * the only key a result has; a repository's are found by their key's prefix. Each write restarts its expiry (FLUXLENS_RESULT_TTL_DAYS), so a
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
      const storedAt = String(Date.now());
      const fields = { headSha: CommitSha.parse(headSha), resultJson, storedAt };
      const write = redis.multi().hset(key, fields);
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
    async putRange(jobId, headSha, resultJson) {
      const key = keys.rangeResult(jobId);
      const fields = { headSha: CommitSha.parse(headSha), resultJson };
      await redis.multi().hset(key, fields).expire(key, queueDefaults.jobStateTtlSeconds).exec();
    },
    async getRange(jobId) {
      const key = keys.rangeResult(jobId);
      const [headSha, resultJson] = await redis.hmget(key, 'headSha', 'resultJson');
      if (headSha === null || resultJson === null) return undefined;
      return { headSha: CommitSha.parse(headSha), resultJson: z.string().parse(resultJson) };
    },
    async latest(repository, limit) {
      const pattern = keys.resultsOf(repository);
      const prefix = pattern.slice(0, -1);
      const found: StoredReview[] = [];
      let cursor = '0';
      let rounds = 0;
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
        cursor = next;
        for (const key of batch) {
          const number = /^[1-9][0-9]{0,15}$/.exec(key.slice(prefix.length))?.[0];
          if (number === undefined) continue;
          const [headSha, storedAt] = await redis.hmget(key, 'headSha', 'storedAt');
          if (!headSha) continue;
          const at = new Date(Number(storedAt ?? 0));
          found.push({ pullNumber: Number(number), headSha, storedAt: at });
        }
      } while (cursor !== '0' && ++rounds < MAX_SCAN_ROUNDS);
      return found
        .sort((a, b) => b.storedAt.getTime() - a.storedAt.getTime() || b.pullNumber - a.pullNumber)
        .slice(0, limit);
    },
  };
}

/** Keys one SCAN call looks at, and the calls one listing makes at most. */
const SCAN_COUNT = 1000;
const MAX_SCAN_ROUNDS = 100;
