/**
 * How a field path is spelled and how list items pair up across revisions: by a key
 * every item carries uniquely (`name`, ...), else by index. Knows nothing of Kubernetes
 * beyond which keys identify list items.
 */

import { isRecord } from './records.js';

const BARE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const BARE_ITEM = /^[A-Za-z0-9_./:-]+$/;
const DIGITS = /^\d+$/;

/** `spec.replicas`, `metadata.labels["helm.sh/chart"]`: keys with odd characters are quoted. */
export function keyPath(path: string, key: string): string {
  if (!BARE_KEY.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === '' ? key : `${path}.${key}`;
}

function itemLabel(value: string | number): string {
  const text = String(value);
  // A name made of digits is quoted so it never reads as an index.
  if (typeof value === 'string' && (DIGITS.test(text) || !BARE_ITEM.test(text))) {
    return JSON.stringify(text);
  }
  return text;
}

/** `[app]` for a name, `[mountPath=/data]` for another key. */
function itemSegment(key: string, value: string | number): string {
  return key === 'name' ? `[${itemLabel(value)}]` : `[${key}=${itemLabel(value)}]`;
}

/** Keys that identify an item, tried in order; `name` for every list. */
const ITEM_KEYS: Record<string, readonly string[]> = {
  ports: ['name', 'containerPort', 'port'],
  volumeMounts: ['name', 'mountPath'],
};

function keyOf(item: unknown, key: string): string | number | undefined {
  if (!isRecord(item)) return undefined;
  const value = item[key];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && key !== 'name') return value;
  return undefined;
}

function keyFits(list: readonly unknown[], key: string): boolean {
  const seen = new Set<string | number>();
  for (const item of list) {
    const value = keyOf(item, key);
    if (value === undefined || seen.has(value)) return false;
    seen.add(value);
  }
  return true;
}

/**
 * The key that pairs items of these lists (every item on every side has it, unique per
 * side), or undefined to pair by index. `parentKey` is the field holding the list.
 */
export function listKey(
  parentKey: string | undefined,
  ...lists: ReadonlyArray<readonly unknown[] | undefined>
): string | undefined {
  const present = lists.filter((l): l is readonly unknown[] => l !== undefined);
  if (!present.some((l) => l.length > 0)) return undefined;
  const candidates = (parentKey !== undefined ? ITEM_KEYS[parentKey] : undefined) ?? ['name'];
  return candidates.find((key) => present.every((list) => keyFits(list, key)));
}

/** One item position: `oldIndex`/`newIndex` are -1 where the item is absent. */
export interface ItemPair {
  segment: string;
  old: unknown;
  new: unknown;
  oldIndex: number;
  newIndex: number;
}

/**
 * Pairs the items of two lists (either may be absent): head order first, then items
 * only at base in base order. Scalars and unkeyed lists pair by index.
 */
export function pairListItems(
  parentKey: string | undefined,
  oldList: readonly unknown[] | undefined,
  newList: readonly unknown[] | undefined,
): ItemPair[] {
  const olds = oldList ?? [];
  const news = newList ?? [];
  const key = listKey(parentKey, oldList, newList);
  if (key === undefined) {
    const pairs: ItemPair[] = [];
    for (let i = 0; i < Math.max(olds.length, news.length); i++) {
      const inOld = i < olds.length;
      const inNew = i < news.length;
      pairs.push({
        segment: `[${i}]`,
        old: inOld ? olds[i] : undefined,
        new: inNew ? news[i] : undefined,
        oldIndex: inOld ? i : -1,
        newIndex: inNew ? i : -1,
      });
    }
    return pairs;
  }
  const oldByKey = new Map<string | number, number>();
  olds.forEach((item, i) => oldByKey.set(keyOf(item, key) as string | number, i));
  const pairs: ItemPair[] = [];
  const matched = new Set<number>();
  news.forEach((item, newIndex) => {
    const value = keyOf(item, key) as string | number;
    const oldIndex = oldByKey.get(value) ?? -1;
    if (oldIndex >= 0) matched.add(oldIndex);
    const old = oldIndex >= 0 ? olds[oldIndex] : undefined;
    pairs.push({ segment: itemSegment(key, value), old, new: item, oldIndex, newIndex });
  });
  olds.forEach((item, oldIndex) => {
    if (matched.has(oldIndex)) return;
    const segment = itemSegment(key, keyOf(item, key) as string | number);
    pairs.push({ segment, old: item, new: undefined, oldIndex, newIndex: -1 });
  });
  return pairs;
}

/** The segments of one list on its own, in order (for walks over a single manifest). */
export function listSegments(parentKey: string | undefined, list: readonly unknown[]): string[] {
  return pairListItems(parentKey, undefined, list).map((p) => p.segment);
}
