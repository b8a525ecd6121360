/**
 * A folder of one job's throwaway files (exported trees, index files), under the cache
 * folder so it lives on the same disk as the mirrors, removed whatever way the job ends.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CancelledError } from '../errors.js';

/**
 * Runs `fn` with a new, empty folder under `<cacheDir>/scratch` and removes the folder
 * when `fn` settles. `fn` is expected to honour `signal` itself: the folder is removed
 * only after `fn` has stopped, so no process it started still writes into it.
 */
export async function withScratchDir<T>(
  cacheDir: string,
  fn: (dir: string) => Promise<T>,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<T> {
  if (options.signal?.aborted) throw new CancelledError('job cancelled before it started');
  const parent = join(cacheDir, 'scratch');
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(join(parent, 'job-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
