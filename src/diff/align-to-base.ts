/**
 * Puts the head side's keyed list items in base order, so a text diff shows what changed
 * and not a reorder (which the field diff does not count as a change either).
 */
import { isRecord, listKey, pairListItems } from '../model/index.js';

function alignList(parentKey: string | undefined, olds: unknown[], news: unknown[]): unknown[] {
  const pairs = pairListItems(parentKey, olds, news);
  const aligned = news.map((item) => item);
  if (listKey(parentKey, olds, news) === undefined) {
    for (const p of pairs) if (p.newIndex >= 0) aligned[p.newIndex] = alignToBase(p.old, p.new);
    return aligned;
  }
  // Items that exist on both sides take the slots they hold at head, in base order;
  // items new at head keep their own slots.
  const shared = pairs.filter((p) => p.oldIndex >= 0 && p.newIndex >= 0);
  const slots = shared.map((p) => p.newIndex).sort((a, b) => a - b);
  const inBaseOrder = [...shared].sort((a, b) => a.oldIndex - b.oldIndex);
  inBaseOrder.forEach((p, i) => {
    aligned[slots[i] as number] = alignToBase(p.old, p.new);
  });
  return aligned;
}

function alignValue(parentKey: string | undefined, old: unknown, next: unknown): unknown {
  if (Array.isArray(old) && Array.isArray(next)) return alignList(parentKey, old, next);
  if (isRecord(old) && isRecord(next)) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(next)) out[key] = alignValue(key, old[key], value);
    return out;
  }
  return next;
}

/** `next` with keyed list items reordered to follow `old`; values are not changed. */
export function alignToBase(old: unknown, next: unknown): unknown {
  return alignValue(undefined, old, next);
}
