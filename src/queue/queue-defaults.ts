/** Defaults both adapters share, so inline and Redis behave alike out of the box. */
export const queueDefaults = {
  /** Tries per job, the first included: a flaky GitHub or registry gets four more chances. */
  attempts: 5,
  /** First retry delay; each further retry doubles it (5 s, 10 s, 20 s, 40 s). */
  backoffMs: 5_000,
  /** How long close() lets running jobs finish before it interrupts them. */
  graceMs: 30_000,
  /** GitHub redelivers within hours; a day covers manual redeliveries too. */
  deliveryTtlSeconds: 24 * 60 * 60,
  /** How long job states stay queryable after the job ends. */
  jobStateTtlSeconds: 7 * 24 * 60 * 60,
  /** Failure reasons are kept short: they end up in API answers and logs. */
  maxReasonLength: 500,
} as const;

/** BullMQ's exponential backoff: the n-th failure waits backoffMs * 2^(n-1). */
export function retryDelayMs(backoffMs: number, failures: number): number {
  return Math.round(backoffMs * 2 ** Math.max(0, failures - 1));
}
