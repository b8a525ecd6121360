/**
 * A producer's outcome by its content key: the other revision's render's, else the one the
 * render cache holds, else what its build gives, which is then kept in both places.
 */
import type { RenderCache } from './render-cache.js';
import type { MemoOutcome, RenderMemo } from './render-memo.js';
import { readOutcome, writeOutcome } from './outcome-store.js';

export interface OutcomeStores {
  /** The review's other render; absent: nothing is taken as unchanged. */
  memo?: RenderMemo | undefined;
  /** The render cache on disk; absent: nothing outlives the render. */
  store?: RenderCache | undefined;
}

/**
 * `read` turns a kept outcome into the caller's kind, or refuses it. Without a key (the
 * producer could read something no key covers) the build always runs.
 */
export async function reuseOrBuild<T extends MemoOutcome>(
  stores: OutcomeStores,
  key: string | undefined,
  read: (kept: MemoOutcome) => T | undefined,
  build: () => Promise<T>,
): Promise<T> {
  const kept = key !== undefined ? await reuse(stores, key, read) : undefined;
  if (kept) return kept;
  const outcome = await build();
  if (key !== undefined && stores.store) await writeOutcome(stores.store, key, outcome);
  stores.memo?.note(key, outcome, 'rendered');
  return outcome;
}

/** The outcome kept under `key` by the other render or the render cache, counted; or nothing. */
export async function reuse<T extends MemoOutcome>(
  stores: OutcomeStores,
  key: string,
  read: (kept: MemoOutcome) => T | undefined,
): Promise<T | undefined> {
  const kept = stores.memo?.get(key);
  const unchanged = kept && read(kept);
  if (unchanged) {
    stores.memo?.note(key, unchanged, 'unchanged');
    return unchanged;
  }
  const stored = stores.store && (await readOutcome(stores.store, key));
  const cached = stored && read(stored);
  if (cached) {
    stores.memo?.note(key, cached, 'cached');
    return cached;
  }
  return undefined;
}
