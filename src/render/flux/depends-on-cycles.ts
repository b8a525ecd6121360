/**
 * Cycles in `spec.dependsOn`: Flux waits for every dependency to be ready first, so the
 * producers of a cycle never reconcile. Both engines report them, one RenderError per
 * producer in a cycle, the way a producer that applies its own ancestor is reported.
 */
import {
  type Producer,
  type RenderError,
  type RenderedObject,
  objectMeta,
  producerKey,
  toRef,
} from '../../model/index.js';

/**
 * One error per producer that lies on a dependsOn cycle, naming the shortest cycle through
 * it (`Kustomization dependsOn cycle: ns/a -> ns/b -> ns/a`). A dependsOn naming a producer
 * that does not exist is no cycle; a producer waiting on a cycle without being on one gets
 * no error either. Deterministic: neighbours are visited in key order. The error names the
 * file the producer is written in: its own, or, given the rendered `objects`, the one its
 * parent rendered it from.
 */
export function dependsOnCycles(
  producers: readonly Producer[],
  objects: readonly RenderedObject[] = [],
): RenderError[] {
  const byKey = new Map(producers.map((p) => [producerKey(p), p]));
  const edges = new Map<string, string[]>();
  for (const [key, p] of byKey) {
    const next = [...new Set(p.dependsOn.map(producerKey))].filter((k) => byKey.has(k)).sort();
    edges.set(key, next);
  }
  const candidates = onOrBeforeCycles(edges);
  const errors: RenderError[] = [];
  for (const key of [...candidates].sort()) {
    const cycle = shortestCycle(key, edges, candidates);
    const producer = byKey.get(key);
    if (cycle === undefined || producer === undefined) continue;
    const names = cycle.map((k) => k.slice(k.indexOf('/') + 1));
    const error: RenderError = {
      producer: toRef(producer),
      message: `${producer.kind} dependsOn cycle: ${names.join(' -> ')}`,
    };
    const file = definitionFile(producer, objects);
    if (file !== undefined) error.file = file;
    errors.push(error);
  }
  return errors;
}

function definitionFile(
  producer: Producer,
  objects: readonly RenderedObject[],
): string | undefined {
  const { definedIn } = producer;
  if ('file' in definedIn) return definedIn.file === '' ? undefined : definedIn.file;
  const parent = producerKey(definedIn.parent);
  const own = objects.find((o) => {
    const meta = objectMeta(o.manifest);
    return (
      producerKey(o.producer) === parent &&
      meta.kind === producer.kind &&
      meta.name === producer.name &&
      (meta.namespace ?? o.producer.namespace) === producer.namespace
    );
  });
  return own?.file;
}

/** The producers left after repeatedly dropping those whose dependencies are all dropped. */
function onOrBeforeCycles(edges: ReadonlyMap<string, string[]>): Set<string> {
  const left = new Set(edges.keys());
  const waitingOn = new Map([...edges].map(([k, next]) => [k, next.length]));
  const dependents = new Map<string, string[]>();
  for (const [key, next] of edges) {
    for (const n of next) dependents.set(n, [...(dependents.get(n) ?? []), key]);
  }
  const free = [...edges.keys()].filter((k) => waitingOn.get(k) === 0);
  while (free.length > 0) {
    const key = free.pop()!;
    left.delete(key);
    for (const d of dependents.get(key) ?? []) {
      const n = (waitingOn.get(d) ?? 0) - 1;
      waitingOn.set(d, n);
      if (n === 0) free.push(d);
    }
  }
  return left;
}

/** The shortest path from `start` back to itself (breadth first), or undefined. */
function shortestCycle(
  start: string,
  edges: ReadonlyMap<string, string[]>,
  within: ReadonlySet<string>,
): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const current = queue[i]!;
    for (const next of edges.get(current) ?? []) {
      if (next === start) {
        const path = [start];
        for (let at = current; at !== start; at = previous.get(at)!) path.unshift(at);
        return [start, ...path];
      }
      if (!within.has(next) || previous.has(next)) continue;
      previous.set(next, current);
      queue.push(next);
    }
  }
  return undefined;
}
