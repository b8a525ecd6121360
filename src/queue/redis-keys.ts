import { createHash } from 'node:crypto';
import { pullKey, repositoryKey } from './pull-key.js';
import type { PullRef, RepositoryRef } from './types.js';

export const DEFAULT_QUEUE_NAME = 'reviews';

/**
 * Where the Redis adapter keeps its own state beside BullMQ's keys. Per-PR coalescing
 * state and job states sit under the queue's namespace (they are queue state); results
 * and the delivery ledger belong to the app and sit beside it.
 */
export function redisKeys(prefix: string, queueName: string) {
  const queueBase = `${prefix}:${queueName}:fluxlens`;
  return {
    pull: (pull: PullRef) => `${queueBase}:pr:${pullKey(pull)}`,
    /** The coalescing state of a job's subject (see jobSubject): its PR's, or its range's. */
    subject: (subjectKey: string) => `${queueBase}:pr:${subjectKey}`,
    job: (jobId: string) => `${queueBase}:job:${jobId}`,
    jobPrefix: `${queueBase}:job:`,
    alivePrefix: `${queueBase}:alive:`,
    repository: (repository: RepositoryRef) => `${queueBase}:repo:${repositoryKey(repository)}`,
    // Hashed: a bucket may name a token, and its key must not.
    limit: (bucket: string) =>
      `${prefix}:limits:${createHash('sha256').update(bucket).digest('hex').slice(0, 32)}`,
    delivery: (deliveryId: string) => `${prefix}:deliveries:${deliveryId}`,
    result: (pull: PullRef) => `${prefix}:results:${pullKey(pull)}`,
    /** pullKey -> the order its result was last written in: what the reviews page lists. */
    recentResults: `${prefix}:recent-results`,
    recentResultsOrder: `${prefix}:recent-results:order`,
    rangeResult: (jobId: string) => `${prefix}:range-results:${jobId}`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
