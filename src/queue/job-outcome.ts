import { UnrecoverableError } from 'bullmq';
import { errorMessage } from '../errors.js';
import { queueDefaults } from './queue-defaults.js';
import { type JobContext, type JobProcessor, PermanentJobError, type QueuedJob } from './types.js';

export type InterruptionKind = 'superseded' | 'pull-closed' | 'shutdown';

/**
 * The reason a job's signal carries when the queue stops it: a newer job for the PR, the
 * PR closing, or the worker shutting down (the job goes back to the queue).
 */
export class JobInterruptedError extends Error {
  constructor(
    readonly kind: InterruptionKind,
    message: string,
  ) {
    super(message);
    this.name = 'JobInterruptedError';
  }
}

export type JobOutcome =
  | { kind: 'completed' }
  /** Superseded or the PR closed: ends without retry and never counts as failed. */
  | { kind: 'cancelled'; reason: string }
  /** The worker shut down under it: back to the queue, not an attempt. */
  | { kind: 'interrupted' }
  | { kind: 'permanent'; reason: string }
  | { kind: 'transient'; reason: string };

/**
 * Runs the processor and classifies how it ended, once for both adapters. Once the queue
 * has aborted a job, the abort decides the outcome whatever the processor did after it:
 * a superseded job that throws is not a failure, and an interrupted one is run again.
 */
export async function runProcessor(
  processor: JobProcessor,
  job: QueuedJob,
  ctx: JobContext,
): Promise<JobOutcome> {
  let failure: { error: unknown } | undefined;
  try {
    await processor(job, ctx);
  } catch (error) {
    failure = { error };
  }
  const stop: unknown = ctx.signal.aborted ? ctx.signal.reason : undefined;
  if (stop instanceof JobInterruptedError) {
    return stop.kind === 'shutdown'
      ? { kind: 'interrupted' }
      : { kind: 'cancelled', reason: stop.message };
  }
  if (!failure) return { kind: 'completed' };
  const reason = boundedReason(failure.error);
  return isPermanent(failure.error) ? { kind: 'permanent', reason } : { kind: 'transient', reason };
}

/** PermanentJobError is ours; UnrecoverableError is honoured too, it means the same. */
export function isPermanent(err: unknown): boolean {
  return err instanceof PermanentJobError || err instanceof UnrecoverableError;
}

export function boundedReason(err: unknown): string {
  const message = errorMessage(err) || 'job failed without a message';
  const max = queueDefaults.maxReasonLength;
  return message.length > max ? `${message.slice(0, max - 1)}…` : message;
}
