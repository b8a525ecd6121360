/**
 * Pairs base and head objects by identity: API group, kind, namespace and name (objectId),
 * never the version or the producer, so an apiVersion migration or a move between
 * producers is one object that changed, not a removal and an addition. An identity that
 * two producers apply on one side is paired producer by producer (see copiesById). A ConfigMap or
 * Secret that kustomize generated is paired across a new hash suffix too: new data
 * renames it, and the data change is what a reviewer needs to see.
 */
import {
  type RenderedObject,
  apiGroup,
  objectId,
  objectMeta,
  producerKey,
} from '../model/index.js';

export interface ObjectPair {
  /** The head object's identity (the base one's for a removal). */
  id: string;
  base?: RenderedObject;
  head?: RenderedObject;
}

/** One object per identity (the last in render order, for the rename logic below). */
function byId(objects: readonly RenderedObject[]): Map<string, RenderedObject> {
  const out = new Map<string, RenderedObject>();
  for (const object of objects) out.set(objectId(object.manifest), object);
  return out;
}

/**
 * The copies of each identity by producer. Two producers applying one object is a
 * conflict the renderer and a risk rule report (applied twice); the diff shows each
 * producer's copy as its own change, so a second producer taking an object up reads as
 * an addition by it, never as the object moving.
 */
function copiesById(objects: readonly RenderedObject[]): Map<string, Map<string, RenderedObject>> {
  const out = new Map<string, Map<string, RenderedObject>>();
  for (const object of objects) {
    const id = objectId(object.manifest);
    const copies = out.get(id) ?? new Map<string, RenderedObject>();
    copies.set(producerKey(object.producer), object);
    out.set(id, copies);
  }
  return out;
}

function pairOf(id: string, base?: RenderedObject, head?: RenderedObject): ObjectPair {
  const pair: ObjectPair = { id };
  if (base !== undefined) pair.base = base;
  if (head !== undefined) pair.head = head;
  return pair;
}

/**
 * kustomize's generators end a name with `-` and 10 characters of the hash of the
 * contents, spelled in its own alphabet (hex with 0, 1, 3, a and e swapped for g, h, k,
 * m and t, so no word is spelled by chance).
 */
const HASH_SUFFIX = /^(.+)-[bcdfghkmt2456789]{10}$/;

/** `ConfigMap/ns/app-config` for a generated `app-config-<hash>`, else undefined. */
function generatedStem(id: string, object: RenderedObject): string | undefined {
  const meta = objectMeta(object.manifest);
  if (apiGroup(meta.apiVersion) !== '' || !['ConfigMap', 'Secret'].includes(meta.kind)) {
    return undefined;
  }
  const stem = HASH_SUFFIX.exec(meta.name)?.[1];
  return stem === undefined ? undefined : `${id.slice(0, id.lastIndexOf('/') + 1)}${stem}`;
}

function byStem(only: Map<string, RenderedObject>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [id, object] of only) {
    const stem = generatedStem(id, object);
    if (stem !== undefined) out.set(stem, [...(out.get(stem) ?? []), id]);
  }
  return out;
}

/**
 * Base ids renamed at head: a generated object gone from base and one new at head with
 * the same kind, namespace and name before the suffix, one on each side (with more it is
 * not clear which became which, so they stay removals and additions).
 */
function renames(
  before: Map<string, RenderedObject>,
  after: Map<string, RenderedObject>,
): Map<string, string> {
  const only = (a: Map<string, RenderedObject>, b: Map<string, RenderedObject>) => {
    const out = new Map<string, RenderedObject>();
    for (const [id, object] of a) if (!b.has(id)) out.set(id, object);
    return out;
  };
  const gone = byStem(only(before, after));
  const came = byStem(only(after, before));
  const out = new Map<string, string>();
  for (const [stem, [baseId, ...more]] of gone) {
    const heads = came.get(stem) ?? [];
    if (baseId !== undefined && more.length === 0 && heads.length === 1) {
      out.set(baseId, heads[0] as string);
    }
  }
  return out;
}

/** Every identity present on either side, sorted by id (code unit order, locale-free). */
export function pairObjects(
  base: readonly RenderedObject[],
  head: readonly RenderedObject[],
): ObjectPair[] {
  const before = byId(base);
  const after = byId(head);
  const renamed = renames(before, after);
  const baseOf = new Map([...renamed].map(([baseId, headId]) => [headId, baseId]));
  const copiesBefore = copiesById(base);
  const copiesAfter = copiesById(head);
  const none = new Map<string, RenderedObject>();
  const ids = [...new Set([...before.keys(), ...after.keys()])]
    .filter((id) => !renamed.has(id))
    .sort();
  return ids.flatMap((id) => {
    const b = copiesBefore.get(baseOf.get(id) ?? id) ?? none;
    const h = copiesAfter.get(id) ?? none;
    if (b.size <= 1 && h.size <= 1) return [pairOf(id, [...b.values()][0], [...h.values()][0])];
    const producers = [...new Set([...b.keys(), ...h.keys()])].sort();
    return producers.map((key) => pairOf(id, b.get(key), h.get(key)));
  });
}
