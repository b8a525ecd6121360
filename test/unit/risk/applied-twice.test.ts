/**
 * An object two producers apply: Flux applies both copies and the last to reconcile wins.
 * Reported only when the PR brings the conflict in (a producer starts applying an object
 * another one applies, or their copies start to differ): danger when the copies differ,
 * caution when they match.
 */
import { describe, expect, it } from 'vitest';
import type { Manifest, ProducerRef, RenderError } from '../../../src/model/render.js';
import { DEFAULT_POLICY } from '../../../src/policy/types.js';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import { ruleById } from '../../../src/risk/registry.js';
import {
  APPS,
  DEFAULT_PRODUCERS,
  PODINFO,
  ROOT,
  cluster,
  fired,
  findingsOf,
  obj,
  pairDiff,
  place,
  producer,
  type Scenario,
} from './scenario.js';

const INFRA: ProducerRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' };
const TEAM: ProducerRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'team' };
const PRODUCERS = [
  ...DEFAULT_PRODUCERS,
  producer(INFRA, { definedIn: { parent: ROOT } }),
  producer(TEAM, { definedIn: { parent: ROOT } }),
];

/** The ConfigMap web/shared as `by` renders it, with the owner labels Flux sets. */
function shared(by: ProducerRef, data = '1'): ReturnType<typeof place> {
  const owner =
    by.kind === 'Kustomization'
      ? {
          'kustomize.toolkit.fluxcd.io/name': by.name,
          'kustomize.toolkit.fluxcd.io/namespace': by.namespace,
        }
      : {
          'helm.toolkit.fluxcd.io/name': by.name,
          'helm.toolkit.fluxcd.io/namespace': by.namespace,
        };
  const manifest: Manifest = obj(
    'v1',
    'ConfigMap',
    'shared',
    'web',
    { data: { a: data } },
    { labels: { app: 'web', ...owner } },
  );
  return place(manifest, { producer: by, file: `${by.name}/shared.yaml` });
}

const scenario = (base: Scenario['base'], head: Scenario['head']): Scenario => ({
  base,
  head,
  baseProducers: PRODUCERS,
  headProducers: PRODUCERS,
});

describe('flux-applied-twice', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a second Kustomization that starts applying an object with other contents',
      scenario([shared(APPS)], [shared(APPS), shared(INFRA, '2')]),
      ['flux-applied-twice'],
    ],
    [
      'flags, with less weight, a second Kustomization that applies the same contents',
      scenario([shared(APPS)], [shared(APPS), shared(INFRA)]),
      ['flux-applied-twice-identical'],
    ],
    [
      'reads copies that differ only in the labels naming their producer as the same',
      scenario([], [shared(APPS), shared(PODINFO)]),
      ['flux-applied-twice-identical'],
    ],
    [
      'flags a Kustomization and a HelmRelease applying one object with other contents',
      scenario([shared(PODINFO)], [shared(PODINFO), shared(APPS, '2')]),
      ['flux-applied-twice'],
    ],
    [
      'flags copies that start to differ',
      scenario([shared(APPS), shared(INFRA)], [shared(APPS), shared(INFRA, '2')]),
      ['flux-applied-twice'],
    ],
    [
      'flags a third producer that joins two',
      scenario([shared(APPS), shared(INFRA)], [shared(APPS), shared(INFRA), shared(TEAM)]),
      ['flux-applied-twice-identical'],
    ],
    [
      'stays quiet when both producers applied it at base already',
      scenario([shared(APPS), shared(INFRA, '2')], [shared(APPS, '3'), shared(INFRA, '2')]),
      [],
    ],
    [
      'stays quiet when the copies stop differing',
      scenario([shared(APPS), shared(INFRA, '2')], [shared(APPS), shared(INFRA)]),
      [],
    ],
    [
      'stays quiet when an object moves from one producer to another',
      scenario([shared(APPS)], [shared(INFRA)]),
      [],
    ],
    ['stays quiet about an object one producer applies', scenario([], [shared(APPS)]), []],
  ])('%s', (_, s, expected) => {
    expect(fired(s, 'flux')).toEqual(expected);
  });

  it('says who applies the object, on the copy the PR adds, at danger when copies differ', () => {
    const [finding, ...rest] = findingsOf(
      scenario([shared(INFRA)], [shared(APPS, '2'), shared(INFRA)]),
      'flux-applied-twice',
    );
    expect(rest).toEqual([]);
    expect(finding).toEqual({
      rule: 'flux-applied-twice',
      level: 'danger',
      cluster: 'home',
      resource: { kind: 'ConfigMap', namespace: 'web', name: 'shared' },
      producer: APPS,
      file: 'apps/shared.yaml',
      message:
        'ConfigMap web/shared is applied by both Kustomization flux-system/apps and Kustomization flux-system/infra, with different contents: Flux applies each on every reconcile, so the object flips to whichever reconciled last.',
    });
  });

  it('registers the identical case at caution', () => {
    expect(ruleById('flux-applied-twice-identical').level).toBe('caution');
    expect(ruleById('flux-applied-twice').level).toBe('danger');
  });

  it('leaves the render error of the conflict to this rule, not to render-error-introduced', () => {
    const message =
      'ConfigMap web/shared is also applied by Kustomization flux-system/apps: Flux would apply both, and the last one to reconcile wins';
    const error: RenderError = { producer: INFRA, file: 'infra/shared.yaml', message };
    const base = cluster([shared(APPS)], PRODUCERS);
    const head = cluster([shared(APPS), shared(INFRA, '2')], PRODUCERS, [
      { ...error, code: 'applied-twice' },
    ]);
    const findings = evaluateRisk({
      clusters: [{ name: 'home', diff: pairDiff('home', base, head, [error]), base, head }],
      policy: DEFAULT_POLICY,
    });
    expect(findings.map((f) => f.rule)).toEqual(['flux-applied-twice']);
  });
});
