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
}

/** Runs a call to the queue, ledger or result store; a failure there is a 503, not a 500. */
export async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw serviceUnavailable(err);
  }
}
