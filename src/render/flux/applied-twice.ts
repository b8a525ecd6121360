/**
 * Objects that two producers apply: Flux applies each copy, the last Kustomization or
 * HelmRelease to reconcile wins, and they take the object from each other on every
 * reconcile. Both copies stay in the cluster, each with its producer: that is what Flux
 * applies, and it lets the diff and the risk step tell the copies apart (a producer that
 * starts applying an object another one applies is not that object moving to it).
 */
import {
  type Manifest,
  type ProducerRef,
  type RenderError,
  type RenderedObject,
  objectId,
  objectMeta,
  producerKey,
} from '../../model/index.js';

function describeObject(manifest: Manifest): string {
  const meta = objectMeta(manifest);
  return `${meta.kind} ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name}`;
}

function describeProducer(ref: ProducerRef): string {
  return `${ref.kind} ${ref.namespace}/${ref.name}`;
}

/**
 * One error per later producer of an object that an earlier one already applies, in the
 * order of `objects` (the cluster's stable producer order), attributed to the later one
 * and naming both. `skip` leaves out objects already reported another way (a Kustomization
 * that two parents apply is a duplicate producer).
 */
export function appliedTwiceErrors(
  objects: readonly RenderedObject[],
  skip: (manifest: Manifest) => boolean = () => false,
): RenderError[] {
  const first = new Map<string, RenderedObject>();
  const reported = new Set<string>();
  const errors: RenderError[] = [];
  for (const object of objects) {
    if (skip(object.manifest)) continue;
    const id = objectId(object.manifest);
    const earlier = first.get(id);
    if (earlier === undefined) {
      first.set(id, object);
      continue;
    }
    const pair = `${id}\n${producerKey(object.producer)}`;
    if (producerKey(earlier.producer) === producerKey(object.producer) || reported.has(pair))
      continue;
    reported.add(pair);
    errors.push({
      producer: object.producer,
      ...(object.file !== undefined ? { file: object.file } : {}),
      message: `${describeObject(object.manifest)} is also applied by ${describeProducer(earlier.producer)}: Flux would apply both, and the last one to reconcile wins`,
      code: 'applied-twice',
    });
  }
  return errors;
}
