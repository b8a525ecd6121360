import type { InlineBoard, InlineJob } from './inline-board.js';
import { runProcessor } from './job-outcome.js';
import { jobLogFields } from './pull-key.js';
import { queueDefaults } from './queue-defaults.js';
import { silentLogger } from './queue-logger.js';
import {
  ABORT_WAIT_MS,
  type QueueWorker,
  type QueueWorkerOptions,
  logOutcome,
  within,
} from './queue-worker.js';
import type { JobContext } from './types.js';

/** Runs an inline board's jobs in this process, up to `concurrency` at once. */
export function startInlineWorker(board: InlineBoard, options: QueueWorkerOptions): QueueWorker {
  const { processor, concurrency } = options;
  const logger = options.logger ?? silentLogger;
  const running = new Map<string, Promise<void>>();
  let stopping = false;
  let scheduled = false;

  const run = async (entry: InlineJob, controller: AbortController): Promise<void> => {
    const ctx: JobContext = {
      jobId: entry.id,
      attempt: entry.state.attempts,
      signal: controller.signal,
      isCurrent: () => Promise.resolve(!controller.signal.aborted && board.isCurrent(entry)),
    };
    const outcome = await runProcessor(processor, entry.job, ctx);
    board.settle(entry, outcome);
    logOutcome(logger, logFields(entry), outcome);
  };

  const pump = (): void => {
    scheduled = false;
    while (!stopping && running.size < concurrency) {
      const taken = board.take();
      if (!taken) return;
      const { entry, controller } = taken;
      logger.info(logFields(entry), 'job started');
      const done = run(entry, controller).finally(() => {
        running.delete(entry.id);
        schedule();
      });
      running.set(entry.id, done);
    }
  };
  // Deferred, so a processor never runs inside enqueue() or inside another job's settling.
  const schedule = (): void => {
    if (scheduled || stopping) return;
    scheduled = true;
    setImmediate(pump);
  };
  const unsubscribe = board.onReady(schedule);
  schedule();

  return {
    async close() {
      stopping = true;
      unsubscribe();
      if (running.size === 0) return;
      await within(Promise.all(running.values()), options.graceMs ?? queueDefaults.graceMs);
      board.interrupt(running.keys());
      await within(Promise.all(running.values()), ABORT_WAIT_MS);
    },
  };
}

function logFields(entry: InlineJob): object {
  return { jobId: entry.id, ...jobLogFields(entry.job), attempt: entry.state.attempts };
}
