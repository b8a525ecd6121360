/**
 * A stateful object that moves to another producer can be deleted on the way. helm
 * deletes what leaves its release; kustomize-controller's garbage collection deletes an
 * object of its old inventory while the object still carries its name and namespace
 * labels, so a Namespace moving between two pruning Kustomizations is deleted, with all
 * that is in it, when the old one prunes before the new one has applied it.
 */
import { describe, expect, it } from 'vitest';
import type { Producer, ProducerRef } from '../../../src/model/render.js';
import {
  APPS,
  DEFAULT_PRODUCERS,
  PODINFO,
  ROOT,
  findingsOf,
  fired,
  namespace,
  obj,
  place,
  producer,
  pvc,
  type Scenario,
} from './scenario.js';

const INFRA: ProducerRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' };

function producers(infra: Partial<Producer> = {}, apps: Partial<Producer> = {}): Producer[] {
  return [
    DEFAULT_PRODUCERS[0]!,
    producer(APPS, { definedIn: { parent: ROOT }, ...apps }),
    producer(INFRA, { definedIn: { parent: ROOT }, ...infra }),
    DEFAULT_PRODUCERS[2]!,
  ];
}

/** `web` moves from infra (base) to apps (head). */
function move(
  infra: Partial<Producer> = {},
  apps: Partial<Producer> = {},
  annotations: Record<string, string> = {},
): Scenario {
  const ns = obj('v1', 'Namespace', 'web', undefined, {}, { annotations });
  return {
    base: [place(ns, { producer: INFRA })],
    head: [place(ns, { producer: APPS })],
    baseProducers: producers(infra, apps),
    headProducers: producers(infra, apps),
  };
}

describe('stateful objects that move between producers', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a Namespace moving between two pruning Kustomizations',
      move(),
      ['stateful-move-deleted'],
    ],
    [
      'stays quiet when the old Kustomization waits for the new one, which relabels it first',
      move({ dependsOn: [APPS] }),
      [],
    ],
    ['stays quiet when the old Kustomization has prune off', move({ prune: false }), []],
    ['stays quiet when the old Kustomization is suspended', move({ suspend: true }), []],
    [
      'stays quiet when the Namespace carries prune: disabled',
      move({}, {}, { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' }),
      [],
    ],
    [
      'flags a claim leaving a HelmRelease, which helm deletes whoever applies it next',
      {
        base: [place(pvc('data'), { producer: PODINFO })],
        head: [place(pvc('data'), { producer: APPS })],
      },
      ['stateful-move-deleted'],
    ],
    [
      'stays quiet for a ConfigMap, which is not stateful',
      {
        base: [place(obj('v1', 'ConfigMap', 'c', 'web'), { producer: INFRA })],
        head: [place(obj('v1', 'ConfigMap', 'c', 'web'), { producer: APPS })],
        baseProducers: producers(),
        headProducers: producers(),
      },
      [],
    ],
    [
      'stays quiet for a Namespace that stays with its Kustomization',
      { base: [namespace('web')], head: [namespace('web', { tier: 'gold' })] },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'data-loss')).toEqual(expected);
  });

  it('says the old Kustomization may delete the Namespace and everything in it, and how to avoid it', () => {
    const [finding] = findingsOf(move(), 'stateful-move-deleted');
    expect(finding).toMatchObject({
      level: 'danger',
      resource: { kind: 'Namespace', name: 'web' },
      producer: APPS,
    });
    expect(finding?.message).toBe(
      'Namespace web moves from Kustomization flux-system/infra to Kustomization flux-system/apps, ' +
        'which both reconcile the new revision at once: if Kustomization flux-system/infra prunes ' +
        'before Kustomization flux-system/apps has applied it (and so labelled it as its own), ' +
        'Kustomization flux-system/infra deletes it; every object in it goes too, including volume ' +
        'claims and anything created outside Git. Make Kustomization flux-system/infra depend on ' +
        'Kustomization flux-system/apps, or annotate it kustomize.toolkit.fluxcd.io/prune: disabled ' +
        'for the move.',
    );
  });
});
