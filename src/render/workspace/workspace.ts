/**
 * A render's scratch folder, under the system's temporary folder (TMPDIR). The engine
 * removes it in a `finally`, so it goes however the render ends: a result, an error, or a
 * cancellation (SIGTERM in the CLI, shutdown in the worker), which arrives as the
 * CancelledError of a stopped tool once the signal has reached the tool runner.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Every workspace's name starts with `fluxlens-`, so a leftover is easy to tell. */
export function createWorkspace(prefix: 'fluxlens-' | 'fluxlens-fl-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeWorkspace(dir: string): Promise<void> {
  // After a cancel, a build that has not reached its next tool yet may still write for a
  // moment: a folder that gains an entry while it is removed is tried again (ENOTEMPTY).
  await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
