import type { Admission, RateLimit } from './types.js';

/** Buckets kept at most; the ones whose window ended go first past it. */
const MAX_BUCKETS = 100_000;

/**
 * The inline adapter's admission counters: the Redis adapter's fixed windows, in memory.
 * One process is the whole service in inline mode, so nothing needs sharing.
 */
export function createMemoryLimiter(
  now: () => number = Date.now,
): (bucket: string, limit: RateLimit) => Admission {
  const windows = new Map<string, { calls: number; endsAt: number }>();
  return (bucket, limit) => {
    const at = now();
    if (windows.size >= MAX_BUCKETS) {
      for (const [name, window] of windows) if (window.endsAt <= at) windows.delete(name);
    }
    let window = windows.get(bucket);
    if (window === undefined || window.endsAt <= at) {
      // Re-inserted, so the map stays in the order windows end (one length per bucket).
      windows.delete(bucket);
      window = { calls: 0, endsAt: at + limit.windowSeconds * 1000 };
      windows.set(bucket, window);
    }
    window.calls += 1;
    if (window.calls <= limit.count) return { admitted: true };
    return {
      admitted: false,
      retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt - at) / 1000)),
    };
  };
}
