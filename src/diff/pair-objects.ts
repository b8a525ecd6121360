/**
 * Pairs base and head objects by identity: API group, kind, namespace and name (objectId),
 * never the version or the producer, so an apiVersion migration or a move between
 * producers is one object that changed, not a removal and an addition.
 */
import { type RenderedObject, objectId } from '../model/index.js';

export interface ObjectPair {
  id: string;
  base?: RenderedObject;
  head?: RenderedObject;
}

/**
 * Two objects with one identity on one side (two producers rendering the same object):
 * the last one in render order is kept, which is stable because render order is. The
 * diff notes nothing; a conflict is for the renderer or a risk rule to report.
 */
function byId(objects: readonly RenderedObject[]): Map<string, RenderedObject> {
  const out = new Map<string, RenderedObject>();
  for (const object of objects) out.set(objectId(object.manifest), object);
  return out;
}

/** Every identity present on either side, sorted by id (code unit order, locale-free). */
export function pairObjects(
  base: readonly RenderedObject[],
  head: readonly RenderedObject[],
): ObjectPair[] {
  const before = byId(base);
  const after = byId(head);
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  return ids.map((id) => {
    const pair: ObjectPair = { id };
    const b = before.get(id);
    const h = after.get(id);
    if (b !== undefined) pair.base = b;
    if (h !== undefined) pair.head = h;
    return pair;
  });
}
