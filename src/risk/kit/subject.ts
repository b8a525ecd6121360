/** What a finding is about: the resource, who applies it, and where it is written. */
import {
  type Finding,
  type Producer,
  type ProducerRef,
  type RenderedObject,
  type ResourceChange,
  objectMeta,
  producerKey,
} from '../../model/index.js';
import { producerObject, type RiskContext } from './context.js';

export interface Subject {
  resource: Finding['resource'];
  producer?: ProducerRef;
  file?: string;
  line?: number;
}

function resource(kind: string, namespace: string | undefined, name: string): Subject['resource'] {
  return namespace ? { kind, namespace, name } : { kind, name };
}

/** A changed object: head file and line, or base for a removal (the diff already chose). */
export function changeSubject(change: ResourceChange): Subject {
  const subject: Subject = {
    resource: resource(change.kind, change.namespace, change.name),
    producer: change.producer,
  };
  if (change.file) subject.file = change.file;
  if (change.file && change.line !== undefined) subject.line = change.line;
  return subject;
}

/**
 * A producer as a resource: its own definition file and line, or, when a parent renders
 * it, the parent as its producer and the file and line the parent read it from.
 */
export function producerSubject(ctx: RiskContext, producer: Producer): Subject {
  const subject: Subject = { resource: resource(producer.kind, producer.namespace, producer.name) };
  const definedIn = producer.definedIn;
  if ('file' in definedIn) {
    if (definedIn.file) subject.file = definedIn.file;
    if (definedIn.line !== undefined && definedIn.file) subject.line = definedIn.line;
    return subject;
  }
  subject.producer = definedIn.parent;
  const side = ctx.head.producers.has(producerKey(producer)) ? ctx.head : ctx.base;
  const object = producerObject(side, producer);
  if (object?.file) subject.file = object.file;
  if (object?.file && object.line !== undefined) subject.line = object.line;
  return subject;
}

/** The resource kind of findings about a whole cluster rather than one object. */
export const CLUSTER_KIND = 'Cluster';

/** `Kind namespace/name`, or `Kind name` for cluster-scoped resources. */
export function describe(r: Subject['resource']): string {
  // Cluster-wide findings name the cluster (the fluxlens entry path), not an object.
  if (r.kind === CLUSTER_KIND && !r.namespace) return `cluster ${r.name}`;
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

/** Up to `max` items joined for a message, then "and N more". */
export function listSome(items: readonly string[], max = 3): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** An object that did not change itself but is what a finding is about. */
export function objectSubject(object: RenderedObject): Subject {
  const meta = objectMeta(object.manifest);
  const subject: Subject = {
    resource: resource(meta.kind, meta.namespace, meta.name),
    producer: object.producer,
  };
  if (object.file) subject.file = object.file;
  if (object.file && object.line !== undefined) subject.line = object.line;
  return subject;
}
