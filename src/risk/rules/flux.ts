/**
 * Flux: changes to how Flux applies things rather than to what it applies. Suspension,
 * pruning, force, re-pointed Kustomizations, dependencies that disappear, objects two
 * producers apply (applied-twice.ts), values only the cluster holds (in-cluster-sources.ts),
 * who and where producers apply as (flux-spec.ts), and the controllers' flags
 * (flux-controllers.ts).
 */
import {
  objectMeta,
  plural,
  producerKey,
  type Manifest,
  type Producer,
} from '../../model/index.js';
import {
  type Draft,
  type RiskContext,
  type RuleFamily,
  at,
  changeSubject,
  currentProducer,
  describe,
  introducedBy,
  isKind,
  listSome,
  producerSubject,
  removalFate,
} from '../kit/index.js';
import { APPLIED_TWICE_RULES, appliedTwice } from './applied-twice.js';
import { CHART_CRD_RULES, chartCrdChanges } from './chart-crds.js';
import { FLUX_CONTROLLER_RULES, controllerArgs } from './flux-controllers.js';
import { FLUX_SPEC_RULES, fluxSpecChanges } from './flux-spec.js';
import { IN_CLUSTER_SOURCE_RULES, inClusterSources } from './in-cluster-sources.js';
import { STATEFUL } from './data-loss.js';

function producerPairs(ctx: RiskContext): Array<[Producer, Producer]> {
  const pairs: Array<[Producer, Producer]> = [];
  for (const [key, head] of ctx.head.producers) {
    const base = ctx.base.producers.get(key);
    if (base) pairs.push([base, head]);
  }
  return pairs;
}

function toggles(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const [base, head] of producerPairs(ctx)) {
    const subject = producerSubject(ctx, head);
    const what = describe(subject.resource);
    if (!base.suspend && head.suspend) {
      drafts.push({
        rule: 'flux-suspended',
        subject,
        message: `${what} is suspended: Flux stops applying it, so no change to what it manages rolls out until it is resumed.`,
      });
    }
    if (base.suspend && !head.suspend) {
      drafts.push({
        rule: 'flux-resumed',
        subject,
        message: `${what} is resumed: Flux applies at once everything that changed in it while it was suspended.`,
      });
    }
    if (head.kind !== 'Kustomization') continue;
    if (base.prune && !head.prune) {
      drafts.push({
        rule: 'flux-prune-disabled',
        subject,
        message: `${what} turns prune off: objects removed from it from now on stay in the cluster, unmanaged.`,
      });
    }
    if (!base.prune && head.prune) {
      drafts.push({
        rule: 'flux-prune-enabled',
        subject,
        message: `${what} turns prune on: Flux deletes every object it applied before that is no longer in Git, including ones left behind while prune was off.`,
      });
    }
    if (base.path !== head.path || base.source !== head.source) {
      const from = `${base.source} path ${base.path}`;
      const to = `${head.source} path ${head.path}`;
      const leftover = head.prune
        ? 'deletes what only the old one had'
        : 'leaves what only the old one had in place';
      drafts.push({
        rule: 'flux-repointed',
        subject,
        message: `${what} is re-pointed from ${from} to ${to}: Flux applies the new tree and ${leftover}.`,
      });
    }
  }
  return drafts;
}

function forceOn(manifest: Manifest): Array<{ key: string }> {
  const meta = objectMeta(manifest);
  if (isKind(meta, 'Kustomization'))
    return at(manifest, 'spec', 'force') === true ? [{ key: 'force' }] : [];
  if (isKind(meta, 'HelmRelease')) {
    return at(manifest, 'spec', 'upgrade', 'force') === true ? [{ key: 'force' }] : [];
  }
  return [];
}

function force(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (introducedBy(ctx, change, forceOn).length === 0) continue;
    const subject = changeSubject(change);
    drafts.push({
      rule: 'flux-force-enabled',
      subject,
      message: `${describe(subject.resource)} turns force on: when an update is refused (an immutable field), the object is deleted and created again instead of the apply failing.`,
    });
  }
  return drafts;
}

function dependencies(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const producer of ctx.head.producers.values()) {
    const gone = producer.dependsOn
      .filter(
        (d) => !ctx.head.producers.has(producerKey(d)) && ctx.base.producers.has(producerKey(d)),
      )
      .map((d) => `${d.kind} ${d.namespace}/${d.name}`);
    if (gone.length === 0) continue;
    const subject = producerSubject(ctx, producer);
    drafts.push({
      rule: 'flux-dependency-removed',
      subject,
      message: `${describe(subject.resource)} depends on ${listSome(gone)}, which this change removes: Flux holds it back as not ready, so nothing in it reconciles.`,
    });
  }
  return drafts;
}

/** Changes that do not roll out because their producer is suspended after the merge. */
function suspendedChanges(ctx: RiskContext): Draft[] {
  const counts = new Map<string, { producer: Producer; count: number }>();
  for (const change of ctx.diff.changes) {
    const producer = currentProducer(ctx, change.producer);
    if (!producer?.suspend || !ctx.head.producers.has(producerKey(producer))) continue;
    const key = producerKey(producer);
    const entry = counts.get(key) ?? { producer, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  return [...counts.values()].map(({ producer, count }) => {
    const subject = producerSubject(ctx, producer);
    return {
      rule: 'flux-change-while-suspended',
      subject,
      message: `${plural(count, 'change')} under ${describe(subject.resource)} ${count === 1 ? 'does' : 'do'} not roll out: it is suspended, and Flux applies ${count === 1 ? 'it' : 'them'} only once it is resumed.`,
    };
  });
}

/** Removed objects nothing deletes, grouped by producer (stateful kinds are reported one by one elsewhere). */
function orphanedRemovals(ctx: RiskContext): Draft[] {
  const groups = new Map<string, { producer: Producer; why: string; names: string[] }>();
  for (const change of ctx.diff.changes) {
    if (change.status !== 'removed' || isKind(change, ...STATEFUL)) continue;
    const producer = ctx.head.producers.get(producerKey(change.producer));
    if (!producer) continue;
    const fate = removalFate(ctx, change);
    if (fate.kind !== 'orphaned') continue;
    const key = `${producerKey(producer)}\n${fate.why}`;
    const group = groups.get(key) ?? { producer, why: fate.why, names: [] };
    group.names.push(describe(changeSubject(change).resource));
    groups.set(key, group);
  }
  return [...groups.values()].map(({ producer, why, names }) => ({
    rule: 'flux-removal-orphaned',
    subject: producerSubject(ctx, producer),
    message: `${listSome(names.sort())} ${names.length === 1 ? 'leaves' : 'leave'} Git but ${names.length === 1 ? 'stays' : 'stay'} in the cluster, unmanaged: ${why}.`,
  }));
}

export const flux: RuleFamily = {
  name: 'flux',
  label: 'Flux',
  rules: [
    {
      id: 'flux-suspended',
      level: 'caution',
      description: 'A Kustomization or HelmRelease that becomes suspended.',
      headline: 'Suspends {resource}',
    },
    {
      id: 'flux-resumed',
      level: 'caution',
      description: 'A Kustomization or HelmRelease that is resumed, rolling out what piled up.',
      headline: 'Resumes {resource}',
    },
    {
      id: 'flux-change-while-suspended',
      level: 'caution',
      description: 'Changes under a producer that is suspended at head: they will not roll out.',
      headline: 'Changes {resource} while it is suspended',
    },
    {
      id: 'flux-removal-orphaned',
      level: 'caution',
      description:
        'Removed objects nothing deletes (prune off, prune: disabled, helm keep), per producer: they stay, unmanaged.',
      headline: 'Leaves objects of {resource} orphaned',
    },
    {
      id: 'flux-repointed',
      level: 'caution',
      description:
        'A Kustomization whose path or sourceRef changes: the subtree it applies is re-pointed.',
      headline: 'Re-points {resource}',
    },
    {
      id: 'flux-prune-disabled',
      level: 'caution',
      description: 'A Kustomization that turns prune off.',
      headline: 'Turns prune off for {resource}',
    },
    {
      id: 'flux-prune-enabled',
      level: 'caution',
      description: 'A Kustomization that turns prune on.',
      headline: 'Turns prune on for {resource}',
    },
    {
      id: 'flux-force-enabled',
      level: 'caution',
      description:
        'A Kustomization with spec.force, or a HelmRelease with spec.upgrade.force, turned on.',
      headline: 'Turns force on for {resource}',
    },
    {
      id: 'flux-dependency-removed',
      level: 'danger',
      description: 'A producer whose dependsOn names a producer this change removes.',
      headline: '{resource} depends on a removed producer',
    },
    ...CHART_CRD_RULES,
    ...APPLIED_TWICE_RULES,
    ...IN_CLUSTER_SOURCE_RULES,
    ...FLUX_SPEC_RULES,
    ...FLUX_CONTROLLER_RULES,
  ],
  check: (ctx) => [
    ...toggles(ctx),
    ...force(ctx),
    ...dependencies(ctx),
    ...suspendedChanges(ctx),
    ...orphanedRemovals(ctx),
    ...appliedTwice(ctx),
    ...chartCrdChanges(ctx),
    ...inClusterSources(ctx),
    ...fluxSpecChanges(ctx),
    ...controllerArgs(ctx),
  ],
};
