/**
 * Taking a producer out of a render (see Producers.supersedeFileEntry): what its render put
 * in the cluster goes with it, so that the cluster does not depend on whether it rendered
 * before a parent's output superseded it.
 */
import { objectMeta, type RenderedObject } from '../../model/index.js';

/** What dropping reads of a producer's entry (Entry in producers.ts). */
export interface DroppableEntry {
  key: string;
  ref: { namespace: string };
  origin: { file: string; line: number } | { parent: string };
  objects: RenderedObject[];
}

/** Where the index of the cluster rendered so far keeps an object of a producer in `namespace`. */
export function objectIndexKey(object: RenderedObject, namespace: string): string {
  const meta = objectMeta(object.manifest);
  return `${meta.kind}/${meta.namespace ?? namespace}/${meta.name}`;
}

/**
 * Removes `entry`, the objects it indexed and, recursively, every producer its output
 * defined. A render of it still running must not land: Producers.render checks that the
 * map still holds that very entry when the build ends.
 */
export function dropProducer<E extends DroppableEntry>(
  entries: Map<string, E>,
  index: Map<string, RenderedObject>,
  entry: E,
): void {
  if (entries.get(entry.key) !== entry) return;
  entries.delete(entry.key);
  for (const object of entry.objects) {
    const key = objectIndexKey(object, entry.ref.namespace);
    // A producer that rendered the same object since keeps its own.
    if (index.get(key) === object) index.delete(key);
  }
  const defined = [...entries.values()].filter(
    (e) => 'parent' in e.origin && e.origin.parent === entry.key,
  );
  for (const child of defined) dropProducer(entries, index, child);
}
