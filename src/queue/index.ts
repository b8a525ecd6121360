// queue/ owns durable review jobs: one per PR (coalescing requests, cancelling superseded
// jobs), fair priorities, rate-limit counters, retries with backoff, graceful close, the
// delivery ledger and results storage, on BullMQ/Redis or inline. It must not render, talk
// to GitHub or read process.env.
export * from './types.js';
export { createRedisQueue } from './redis-queue.js';
export type { RedisQueue, RedisQueueOptions } from './redis-queue.js';
export { startRedisWorker } from './redis-worker.js';
export type { RedisWorkerOptions } from './redis-worker.js';
export type { RedisConnection, RedisEndpoint } from './redis-connection.js';
export { createInlineQueue } from './inline-queue.js';
export type { InlineQueue, InlineQueueOptions } from './inline-queue.js';
export type { QueueWorker, QueueWorkerOptions } from './queue-worker.js';
export { JobInterruptedError } from './job-outcome.js';
export type { InterruptionKind } from './job-outcome.js';
export { queueDefaults } from './queue-defaults.js';
