/**
 * Field-level changes between two (normalised, redacted) manifests: one path per change,
 * keyed list items matched by key, a whole added or removed subtree as one path.
 */
import { type FieldChange, isRecord, keyPath, pairListItems } from '../model/index.js';

function isScalar(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

/** Numbers compare by value (1 and 1.0 are one number); a string never equals a number. */
function scalarsEqual(a: unknown, b: unknown): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

function walk(
  old: unknown,
  next: unknown,
  path: string,
  parentKey: string | undefined,
  out: FieldChange[],
): void {
  if (old === undefined && next === undefined) return;
  if (old === undefined) {
    out.push({ path, change: 'added' });
    return;
  }
  if (next === undefined) {
    out.push({ path, change: 'removed' });
    return;
  }
  if (isRecord(old) && isRecord(next)) {
    const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
    for (const key of keys) walk(old[key], next[key], keyPath(path, key), key, out);
    return;
  }
  if (Array.isArray(old) && Array.isArray(next)) {
    // A list of plain values (args, hosts) is one value: one path when any item differs.
    if (old.every(isScalar) && next.every(isScalar)) {
      const same = old.length === next.length && old.every((v, i) => scalarsEqual(v, next[i]));
      if (!same) out.push({ path, change: 'changed' });
      return;
    }
    for (const pair of pairListItems(parentKey, old, next)) {
      walk(pair.old, pair.new, path + pair.segment, undefined, out);
    }
    return;
  }
  if (!scalarsEqual(old, next)) out.push({ path, change: 'changed' });
}

/** The paths that differ, in document order (object keys sorted, list items head first). */
export function fieldChanges(old: unknown, next: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  walk(old, next, '', undefined, out);
  return out;
}
