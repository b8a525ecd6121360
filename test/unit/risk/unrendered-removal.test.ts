/**
 * A producer removed after it could not be rendered at base: which objects it applied is
 * not known, so neither the finding nor the verdict's headline says what goes with it.
 */
import { describe, expect, it } from 'vitest';
import type { Producer } from '../../../src/model/render.js';
import { computeVerdict } from '../../../src/risk/compute-verdict.js';
import {
  APPS,
  DEFAULT_PRODUCERS,
  PODINFO,
  ROOT,
  evaluate,
  fired,
  obj,
  place,
  producer,
  type Scenario,
} from './scenario.js';

const withoutPodinfo = DEFAULT_PRODUCERS.slice(0, 2);
const unrendered = (over: Partial<Producer>) => [
  ...withoutPodinfo,
  producer(PODINFO, { definedIn: { parent: APPS }, ...over }),
];
const chartUnavailable: Scenario = {
  base: [],
  head: [],
  baseProducers: unrendered({ error: 'chart unavailable' }),
  headProducers: withoutPodinfo,
};

describe('a removed producer that never rendered at base', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'a HelmRelease whose chart was unavailable',
      chartUnavailable,
      ['producer-removed-unrendered'],
    ],
    [
      'a HelmRelease skipped at base',
      { ...chartUnavailable, baseProducers: unrendered({ skipped: 'source not mapped' }) },
      ['producer-removed-unrendered'],
    ],
    [
      'not a HelmRelease that rendered its objects',
      {
        ...chartUnavailable,
        base: [place(obj('v1', 'ConfigMap', 'a', 'web'), { producer: PODINFO })],
      },
      ['producer-removed'],
    ],
    [
      'not a HelmRelease that rendered nothing',
      { ...chartUnavailable, baseProducers: DEFAULT_PRODUCERS },
      ['producer-removed'],
    ],
  ])('fires for %s', (_name, scenario, expected) => {
    expect(fired(scenario, 'data-loss')).toEqual(expected);
  });

  it('heads the verdict without claiming what it applied goes', () => {
    const verdict = computeVerdict(evaluate(chartUnavailable), [], 0);
    expect(verdict.headline).toBe(
      'Removes HelmRelease podinfo/podinfo; what it applied is not known (data loss)',
    );
  });

  it('counts no objects it keeps under a parent with prune off', () => {
    const apps = producer(APPS, { definedIn: { parent: ROOT }, prune: false });
    const [finding] = evaluate({
      ...chartUnavailable,
      headProducers: [DEFAULT_PRODUCERS[0]!, apps],
    });
    expect(finding).toMatchObject({ rule: 'producer-removed-unrendered' });
    expect(finding?.message).toBe(
      'HelmRelease podinfo/podinfo leaves Git but stays in the cluster (its parent Kustomization flux-system/apps has prune off); it keeps the objects it last applied, which are not known, as it could not be rendered at base.',
    );
  });

  it('counts no objects a Kustomization with prune off leaves behind', () => {
    const apps = producer(APPS, {
      definedIn: { parent: ROOT },
      prune: false,
      error: 'build failed',
    });
    const [finding] = evaluate({
      base: [],
      head: [],
      baseProducers: [DEFAULT_PRODUCERS[0]!, apps],
      headProducers: [DEFAULT_PRODUCERS[0]!],
    });
    expect(finding).toMatchObject({ rule: 'producer-removed-unrendered' });
    expect(finding?.message).toBe(
      'Kustomization flux-system/apps is removed with prune off: the objects it applied stay in the cluster, unmanaged; which they are is not known, as it could not be rendered at base.',
    );
  });
});
