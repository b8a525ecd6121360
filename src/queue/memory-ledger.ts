import { queueDefaults } from './queue-defaults.js';
import type { DeliveryLedger } from './types.js';

/** Plenty for a day of webhooks on one machine; the oldest ids go first past it. */
const MAX_IDS = 100_000;

/** The inline adapter's ledger: delivery ids in memory, each forgotten after its TTL. */
export function createMemoryDeliveryLedger(
  ttlSeconds: number = queueDefaults.deliveryTtlSeconds,
): DeliveryLedger {
  // Insertion order is expiry order (one TTL for all), so pruning stops at the first live id.
  const expiries = new Map<string, number>();
  return {
    firstSeen(deliveryId) {
      const now = Date.now();
      for (const [id, expiresAt] of expiries) {
        if (expiresAt > now && expiries.size < MAX_IDS) break;
        expiries.delete(id);
      }
      if (expiries.has(deliveryId)) return Promise.resolve(false);
      expiries.set(deliveryId, now + ttlSeconds * 1000);
      return Promise.resolve(true);
    },
    forget(deliveryId) {
      // Deleting keeps insertion order equal to expiry order; a later firstSeen appends.
      expiries.delete(deliveryId);
      return Promise.resolve();
    },
  };
}
