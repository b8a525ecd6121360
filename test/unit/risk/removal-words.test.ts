/**
 * The words of removal and suspension findings: counts agree with their verbs, and a
 * producer that never rendered is not said to take a number of objects with it.
 */
import { describe, expect, it } from 'vitest';
import {
  APPS,
  DEFAULT_PRODUCERS,
  PODINFO,
  ROOT,
  findingsOf,
  obj,
  place,
  producer,
  type Scenario,
} from './scenario.js';

const cm = (name: string, data = '1') => obj('v1', 'ConfigMap', name, 'web', { data: { a: data } });
const withoutPodinfo = DEFAULT_PRODUCERS.slice(0, 2);

/** The message of producer-removed, or of producer-removed-unrendered when it never rendered. */
function removalMessage(s: Scenario): string | undefined {
  const unrendered = findingsOf(s, 'producer-removed-unrendered');
  return [...findingsOf(s, 'producer-removed'), ...unrendered][0]?.message;
}

describe('the producer-removed message', () => {
  it.each<[string, Scenario, string]>([
    [
      'agrees with one object a HelmRelease takes with it',
      {
        base: [place(cm('podinfo'), { producer: PODINFO })],
        head: [],
        headProducers: withoutPodinfo,
      },
      'HelmRelease podinfo/podinfo is removed: helm uninstalls the release and its 1 object goes with it.',
    ],
    [
      'agrees with several objects a Kustomization prunes',
      {
        base: [cm('a'), cm('b')],
        head: [],
        headProducers: [DEFAULT_PRODUCERS[0]!, producer(PODINFO, { definedIn: { parent: ROOT } })],
      },
      'Kustomization flux-system/apps is removed: Flux prunes what it applied, so its 2 objects go with it.',
    ],
    [
      'says what it applied is unknown for a HelmRelease that never rendered',
      {
        base: [],
        head: [],
        baseProducers: [
          ...withoutPodinfo,
          producer(PODINFO, { definedIn: { parent: APPS }, error: 'chart not found' }),
        ],
        headProducers: withoutPodinfo,
      },
      'HelmRelease podinfo/podinfo is removed: helm uninstalls the release; which objects go with it is not known, as it could not be rendered at base.',
    ],
    [
      'says so for a producer that was skipped at base too',
      {
        base: [],
        head: [],
        baseProducers: [
          ...withoutPodinfo,
          producer(PODINFO, { definedIn: { parent: APPS }, skipped: 'source not mapped' }),
        ],
        headProducers: withoutPodinfo,
      },
      'HelmRelease podinfo/podinfo is removed: helm uninstalls the release; which objects go with it is not known, as it could not be rendered at base.',
    ],
    [
      'says a producer that rendered nothing applied nothing',
      { base: [], head: [], headProducers: withoutPodinfo },
      'HelmRelease podinfo/podinfo is removed: it applied no objects.',
    ],
  ])('%s', (_name, scenario, message) => {
    expect(removalMessage(scenario)).toBe(message);
  });
});

describe('the flux-change-while-suspended message', () => {
  it('agrees with a single change held back', () => {
    const suspended = [
      DEFAULT_PRODUCERS[0]!,
      producer(APPS, { definedIn: { parent: ROOT }, suspend: true }),
      DEFAULT_PRODUCERS[2]!,
    ];
    const [finding] = findingsOf(
      { base: [cm('a')], head: [cm('a', '2')], baseProducers: suspended, headProducers: suspended },
      'flux-change-while-suspended',
    );
    expect(finding?.message).toBe(
      '1 change under Kustomization flux-system/apps does not roll out: it is suspended, and Flux applies it only once it is resumed.',
    );
  });
});
