/** What every route of one app shares: its deps and the pieces buildServer derives from them. */
import { serviceUnavailable } from './http-error.js';
import type { BackgroundTasks } from './background-tasks.js';
import type { ServerMetrics } from './metrics.js';
import type { ServerDeps } from './types.js';

export interface ServerContext {
  deps: ServerDeps;
  metrics: ServerMetrics;
  background: BackgroundTasks;
  now: () => Date;
  /** Lower-cased "owner/repo"; undefined allows every repository. */
  allowlist: ReadonlySet<string> | undefined;
  /** Lower-cased bot logins allowed to give commands. */
  commandBots: ReadonlySet<string>;
}

/**
 * GitHub gives up on a delivery after 10 s, while a Redis client waits out its reconnects
 * for longer. A queue that has not answered in half that time counts as down, so the 503
 * arrives while GitHub still listens; the call may still land once Redis is back.
 */
const QUEUE_DEADLINE_MS = 5_000;

/** Runs a call to the queue, ledger or result store; a failure there is a 503, not a 500. */
export async function guarded<T>(call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error('the queue did not answer in time')),
      QUEUE_DEADLINE_MS,
    );
  });
  try {
    return await Promise.race([call(), deadline]);
  } catch (err) {
    throw serviceUnavailable(err);
  } finally {
    clearTimeout(timer);
  }
}
