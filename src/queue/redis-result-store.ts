import type { Redis } from 'ioredis';
import { z } from 'zod';
import { CommitSha } from './commit-sha.js';
import { pullKey, pullOfKey, repositoryKey } from './pull-key.js';
import type { RedisKeys } from './redis-keys.js';
import { queueDefaults } from './queue-defaults.js';
import { MAX_LISTED_RESULTS, type ResultStore, type StoredResult } from './types.js';

/** How many PRs the recent-results index remembers; older ones drop out of the listing. */
const MAX_RECENT = 1000;

/**
 * The latest result per PR in one hash (head SHA, result JSON and when it was stored,
 * written together), the only key a result has. Each write restarts its expiry
 * (FLUXLENS_RESULT_TTL_DAYS), so a result goes that long after its PR's last review;
 * without a TTL it is kept forever. A sorted set indexes the MAX_RECENT PRs whose results
 * were written last, for the reviews page; a PR whose hash expired is skipped there.
 */
export function createRedisResultStore(
  redis: Redis,
  keys: RedisKeys,
  ttlSeconds?: number,
): ResultStore {
  return {
    async put(pull, headSha, resultJson) {
      const key = keys.result(pull);
      const storedAt = Date.now();
      // Writes are ordered by a counter, not the clock: two in one millisecond, or on two
      // servers whose clocks differ, still list in the order Redis took them.
      const order = await redis.incr(keys.recentResultsOrder);
      const write = redis.multi().hset(key, {
        headSha: CommitSha.parse(headSha),
        resultJson,
        storedAt: String(storedAt),
      });
      if (ttlSeconds === undefined) write.persist(key);
      else write.expire(key, ttlSeconds);
      write
        .zadd(keys.recentResults, order, pullKey(pull))
        .zremrangebyrank(keys.recentResults, 0, -MAX_RECENT - 1);
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
    async list(query) {
      const limit = Math.min(query.limit, MAX_LISTED_RESULTS);
      const prefix = query.repository ? `${repositoryKey(query.repository)}~` : '';
      const members = await redis.zrevrange(keys.recentResults, 0, MAX_RECENT - 1);
      const pulls = members.flatMap((m) => {
        const pull = m.startsWith(prefix) ? pullOfKey(m) : undefined;
        return pull ? [pull] : [];
      });
      const out: StoredResult[] = [];
      // One round trip per batch of as many as are still wanted: an expired result leaves a
      // gap the next batch fills.
      for (let at = 0; at < pulls.length && out.length < limit; ) {
        const batch = pulls.slice(at, at + limit - out.length);
        at += batch.length;
        const reads = redis.pipeline();
        for (const pull of batch)
          reads.hmget(keys.result(pull), 'headSha', 'resultJson', 'storedAt');
        const answers = (await reads.exec()) ?? [];
        batch.forEach((pull, i) => {
          const [err, fields] = answers[i] ?? [];
          if (err) throw err;
          const [headSha, resultJson, storedAt] = (fields ?? []) as Array<string | null>;
          if (!headSha || typeof resultJson !== 'string') return;
          const stored = { headSha: CommitSha.parse(headSha), resultJson };
          out.push({ pull, ...stored, storedAt: Number(storedAt ?? 0) });
        });
      }
      return out;
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
  };
}
