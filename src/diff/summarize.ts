/**
 * The one-screen summary of a cluster's changes: counts, producers, namespaces and CRDs
 * touched, image and chart changes, render errors introduced and fixed. Derived from
 * redacted changes only, plus the clusters' error lists and their Flux chart sources
 * (redacted as they are read).
 */
import {
  type DiffSummary,
  type RenderedCluster,
  type ResourceChange,
  apiGroup,
  producerKey,
} from '../model/index.js';
import { chartChanges } from './chart-changes.js';
import { imageChanges } from './image-changes.js';
import { NO_SECRET_VALUES, type SecretValueIndex } from '../redact/index.js';
import { renderErrorChanges } from './render-error-changes.js';

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

function isKind(change: ResourceChange, group: string, kind: string): boolean {
  return change.kind === kind && apiGroup(change.apiVersion) === group;
}

export function summarize(
  changes: readonly ResourceChange[],
  base: RenderedCluster,
  head: RenderedCluster,
  secrets: SecretValueIndex = NO_SECRET_VALUES,
): DiffSummary {
  const count = (status: ResourceChange['status']) =>
    changes.filter((c) => c.status === status).length;
  const producers = changes.flatMap((c) =>
    c.previousProducer ? [c.producer, c.previousProducer] : [c.producer],
  );
  // A Namespace object touches the namespace it defines.
  const namespaces = changes.flatMap((c) => {
    if (isKind(c, '', 'Namespace')) return [c.name];
    return c.namespace === undefined ? [] : [c.namespace];
  });
  const crds = changes
    .filter((c) => isKind(c, 'apiextensions.k8s.io', 'CustomResourceDefinition'))
    .map((c) => c.name);
  const errors = renderErrorChanges(base, head, secrets);
  return {
    added: count('added'),
    removed: count('removed'),
    changed: count('changed'),
    moved: count('moved'),
    producers: sortedUnique(producers.map(producerKey)),
    namespaces: sortedUnique(namespaces),
    crds: sortedUnique(crds),
    images: imageChanges(changes),
    charts: chartChanges(base, head, secrets),
    errorsIntroduced: errors.introduced,
    errorsFixed: errors.fixed,
  };
}
