import { InlineBoard } from './inline-board.js';
import { startInlineWorker } from './inline-worker.js';
import { createFileResultStore, createMemoryResultStore } from './file-result-store.js';
import { createMemoryDeliveryLedger } from './memory-ledger.js';
import { createMemoryLimiter } from './memory-limiter.js';
import { pullKey } from './pull-key.js';
import { queueDefaults } from './queue-defaults.js';
import type { LogSink } from '../logger.js';
import type { QueueWorker, QueueWorkerOptions } from './queue-worker.js';
import {
  type DeliveryLedger,
  type JobProcessor,
  type JobQueue,
  PullRef,
  type ResultStore,
  QueuedJob,
} from './types.js';

export interface InlineQueueOptions {
  /** When given, a worker with this processor starts right away and close() stops it. */
  processor?: JobProcessor;
  concurrency?: number;
  attempts?: number;
  backoffMs?: number;
  graceMs?: number;
  /** Results are written here and survive restarts; without it they live in memory. */
  resultDir?: string;
  /** Results in resultDir older than this are gone; undefined keeps them. */
  resultTtlSeconds?: number;
  deliveryTtlSeconds?: number;
  logger?: LogSink;
}

export interface InlineQueue extends JobQueue, DeliveryLedger {
  readonly results: ResultStore;
  /** Another consumer of the same in-process queue (tests; a second pool). */
  startWorker(options: QueueWorkerOptions): QueueWorker;
}

/**
 * The queue in one process, for `fluxlens serve` without Redis: the same coalescing,
 * cancellation, retries and graceful close as the Redis adapter. Jobs do not survive a
 * restart (results do, with resultDir); the periodic resync re-enqueues what is missing.
 */
export function createInlineQueue(options: InlineQueueOptions = {}): InlineQueue {
  const board = new InlineBoard({
    attempts: options.attempts ?? queueDefaults.attempts,
    backoffMs: options.backoffMs ?? queueDefaults.backoffMs,
  });
  const ledger = createMemoryDeliveryLedger(options.deliveryTtlSeconds);
  const limiter = createMemoryLimiter();
  const workers = new Set<QueueWorker>();
  let closed = false;

  const startWorker = (workerOptions: QueueWorkerOptions): QueueWorker => {
    if (closed) throw new Error('inline queue is closed');
    const worker = startInlineWorker(board, workerOptions);
    workers.add(worker);
    return {
      close: async () => {
        workers.delete(worker);
        await worker.close();
      },
    };
  };
  if (options.processor) {
    const { graceMs, logger } = options;
    startWorker({
      processor: options.processor,
      concurrency: options.concurrency ?? 1,
      ...(graceMs === undefined ? {} : { graceMs }),
      ...(logger === undefined ? {} : { logger }),
    });
  }

  return {
    results: options.resultDir
      ? createFileResultStore(
          options.resultDir,
          options.resultTtlSeconds === undefined ? {} : { ttlSeconds: options.resultTtlSeconds },
        )
      : createMemoryResultStore(),
    startWorker,
    firstSeen: (deliveryId) => ledger.firstSeen(deliveryId),
    forget: (deliveryId) => ledger.forget(deliveryId),
    async enqueue(job) {
      if (closed) throw new Error('inline queue is closed');
      return board.enqueue(QueuedJob.parse(job));
    },
    admit: async (bucket, limit) => limiter(bucket, limit),
    async cancel(pull) {
      board.cancel(pullKey(PullRef.parse(pull)));
    },
    state: async (jobId) => board.state(jobId),
    depth: async () => board.depth(),
    ping: async () => !closed,
    async close() {
      closed = true;
      await Promise.all([...workers].map((worker) => worker.close()));
      workers.clear();
      board.close();
    },
  };
}
