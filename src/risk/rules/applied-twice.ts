/**
 * Part of the flux family: an object that two producers apply. Flux applies every copy,
 * the last Kustomization or HelmRelease to reconcile wins, and each takes the object back
 * on its next reconcile. Reported when the PR brings the conflict in: a producer starts
 * applying an object another one applies, or the copies start to differ.
 */
import { type Manifest, type RenderedObject, isRecord, producerKey } from '../../model/index.js';
import {
  type Draft,
  type RevisionView,
  type RiskContext,
  type RuleInfo,
  deepEqual,
  describe,
  listSome,
  objAt,
  objectSubject,
} from '../kit/index.js';

export const APPLIED_TWICE_RULES: readonly RuleInfo[] = [
  {
    id: 'flux-applied-twice',
    level: 'danger',
    description:
      'An object that a second Kustomization or HelmRelease starts to apply, with other contents: it flips to whichever reconciled last.',
    headline: 'Applies {resource} from two producers',
  },
  {
    id: 'flux-applied-twice-identical',
    level: 'caution',
    description:
      'The same with identical contents: each producer takes the object over on every reconcile, and removing it from one can delete it.',
    headline: 'Applies {resource} from two producers',
  },
];

/** Labels Flux sets to name the producer: two copies always differ in them. */
const OWNER_LABELS = new Set([
  'kustomize.toolkit.fluxcd.io/name',
  'kustomize.toolkit.fluxcd.io/namespace',
  'helm.toolkit.fluxcd.io/name',
  'helm.toolkit.fluxcd.io/namespace',
]);

/** The manifest as compared between copies: without the owner labels. */
function withoutOwner(manifest: Manifest): Manifest {
  const metadata = manifest['metadata'];
  const labels = objAt(manifest, 'metadata', 'labels');
  if (!isRecord(metadata) || !labels) return manifest;
  const kept = Object.entries(labels).filter(([key]) => !OWNER_LABELS.has(key));
  const meta: Record<string, unknown> = { ...metadata, labels: Object.fromEntries(kept) };
  if (kept.length === 0) delete meta['labels'];
  return { ...manifest, metadata: meta };
}

interface Conflict {
  /** One copy per producer, in render order. */
  copies: RenderedObject[];
  differ: boolean;
}

/** The objects more than one producer applies at one revision, by identity. */
function conflicts(side: RevisionView): Map<string, Conflict> {
  const out = new Map<string, Conflict>();
  for (const [id, objects] of side.objects) {
    const byProducer = new Map<string, RenderedObject>();
    for (const o of objects)
      if (!byProducer.has(producerKey(o.producer))) byProducer.set(producerKey(o.producer), o);
    const copies = [...byProducer.values()];
    const [first, ...rest] = copies;
    if (!first || rest.length === 0) continue;
    const own = withoutOwner(first.manifest);
    out.set(id, { copies, differ: rest.some((c) => !deepEqual(withoutOwner(c.manifest), own)) });
  }
  return out;
}

const producerName = (o: RenderedObject): string =>
  `${o.producer.kind} ${o.producer.namespace}/${o.producer.name}`;

export function appliedTwice(ctx: RiskContext): Draft[] {
  const before = conflicts(ctx.base);
  const drafts: Draft[] = [];
  for (const [id, now] of conflicts(ctx.head)) {
    const applied = new Set((ctx.base.objects.get(id) ?? []).map((o) => producerKey(o.producer)));
    const joined = now.copies.filter((c) => !applied.has(producerKey(c.producer)));
    const startsToDiffer = now.differ && before.get(id)?.differ !== true;
    if (joined.length === 0 && !startsToDiffer) continue;
    // About the copy the PR adds, where a reviewer looks; else the render error's copy.
    const copy = joined[0] ?? now.copies[1];
    if (!copy) continue;
    const subject = objectSubject(copy);
    const names = now.copies.map(producerName);
    const both = names.length === 2 ? `both ${names.join(' and ')}` : listSome(names, names.length);
    drafts.push(
      now.differ
        ? {
            rule: 'flux-applied-twice',
            subject,
            message: `${describe(subject.resource)} is applied by ${both}, with different contents: Flux applies each on every reconcile, so the object flips to whichever reconciled last.`,
          }
        : {
            rule: 'flux-applied-twice-identical',
            subject,
            message: `${describe(subject.resource)} is applied by ${both}, with the same contents: each takes the object over on every reconcile, and removing it from one can delete it while the other still applies it.`,
          },
    );
  }
  return drafts;
}
