import type { JobOutcome } from './job-outcome.js';
import type { LogSink } from '../logger.js';
import type { JobProcessor } from './types.js';

/** A running consumer of the queue; both adapters return one. */
export interface QueueWorker {
  /**
   * Stops taking jobs, lets running ones finish within the grace period, then interrupts
   * them: they go back to the queue for another worker and do not count as failed.
   */
  close(): Promise<void>;
}

export interface QueueWorkerOptions {
  processor: JobProcessor;
  /** Jobs run at once by this worker. */
  concurrency: number;
  graceMs?: number;
  logger?: LogSink;
}

/** After interrupting, how long close() waits for processors to honour the signal. */
export const ABORT_WAIT_MS = 5_000;

/** Resolves when the promise settles or after `ms`, whichever is first; never rejects. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([promise.then(noop, noop), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function noop(): void {}

/** One log line per job end, the same fields for both adapters. */
export function logOutcome(logger: LogSink, fields: object, outcome: JobOutcome): void {
  switch (outcome.kind) {
    case 'completed':
      return logger.info(fields, 'job completed');
    case 'cancelled':
      return logger.info({ ...fields, reason: outcome.reason }, 'job cancelled');
    case 'interrupted':
      return logger.info(fields, 'job returned to the queue');
    case 'permanent':
      return logger.error({ ...fields, reason: outcome.reason }, 'job failed permanently');
    case 'transient':
      return logger.warn({ ...fields, reason: outcome.reason }, 'job failed');
  }
}
