/**
 * A queue worker in a process of its own, for the test that SIGKILLs one mid-job.
 * Usage: node --import tsx test/support/queue-worker-process.ts REDIS_URL PREFIX LOCK_MS
 * (the stalled-check interval is half the lock: every worker of a queue must use the same,
 * since whichever checks first holds off the others for its interval). Prints `ready` once it takes jobs and `started JOB_ID` for each job, which then runs
 * until the process dies.
 */
import { startRedisWorker } from '../../src/queue/index.js';

const [url, prefix, lockMs] = process.argv.slice(2);
if (!url || !prefix || !lockMs) {
  process.stderr.write('usage: queue-worker-process REDIS_URL PREFIX LOCK_MS\n');
  process.exit(2);
}
await startRedisWorker({
  connection: url,
  prefix,
  concurrency: 1,
  lockDurationMs: Number(lockMs),
  stalledIntervalMs: Number(lockMs) / 2,
  processor: (_job, ctx) => {
    process.stdout.write(`started ${ctx.jobId}\n`);
    return new Promise<void>(() => undefined);
  },
});
process.stdout.write('ready\n');
