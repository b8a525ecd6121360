/** Which producers a PR changes that could not be rendered, and what that does to the verdict. */
import { describe, expect, it } from 'vitest';
import type { ClusterDiff, ResourceChange } from '../../../src/model/index.js';
import type { ProducerRef, RenderError, RenderedCluster } from '../../../src/model/render.js';
import { computeVerdict } from '../../../src/risk/compute-verdict.js';
import { unassessedProducers } from '../../../src/risk/unassessed-producers.js';
import { cluster, helmRelease, kustomization, rendered } from '../diff/build-cluster.js';

const RUNNER = helmRelease('runner', 'apps');
const unreachable = (producer: ProducerRef, offline = false): RenderError => ({
  producer,
  message: 'chart unavailable: cannot fetch http://127.0.0.1:9/index.yaml: ECONNREFUSED',
  code: 'chart-unavailable',
  offline,
});
const templateError: RenderError = { producer: RUNNER, message: 'a tag is required' };

/** The HelmRelease object itself, as its parent Kustomization renders it, changed. */
const ownObjectChange = {
  id: 'helm.toolkit.fluxcd.io/HelmRelease/apps/runner',
  status: 'changed',
} as ResourceChange;

interface Side {
  errors: readonly RenderError[];
  present?: boolean;
}

function input(
  base: Side,
  head: Side,
  changes: ResourceChange[] = [],
): { diff: ClusterDiff; base: RenderedCluster; head: RenderedCluster } {
  const side = (s: Side) => cluster([], [...s.errors], s.present === false ? [] : [RUNNER]);
  const diff = { cluster: 'home', changes, summary: {} } as ClusterDiff;
  return { diff, base: side(base), head: side(head) };
}

describe('unassessed producers', () => {
  it.each([
    [
      'its own object changes, unreachable on both sides',
      { errors: [unreachable(RUNNER)] },
      { errors: [unreachable(RUNNER)] },
      [ownObjectChange],
      'both',
    ],
    [
      'it is new and unreachable',
      { errors: [], present: false },
      { errors: [unreachable(RUNNER)] },
      [],
      'head',
    ],
    [
      'it is removed and was unreachable',
      { errors: [unreachable(RUNNER)] },
      { errors: [], present: false },
      [],
      'base',
    ],
    [
      'it rendered at base and is unreachable at head',
      { errors: [] },
      { errors: [unreachable(RUNNER)] },
      [],
      'head',
    ],
  ] as const)('lists a producer when %s', (_case, base, head, changes, side) => {
    expect(unassessedProducers(input(base, head, [...changes]))).toEqual([
      { producer: RUNNER, side, reason: 'chart unavailable' },
    ]);
  });

  it.each([
    [
      'unreachable on both sides and left alone',
      { errors: [unreachable(RUNNER)] },
      { errors: [unreachable(RUNNER)] },
      [],
    ],
    [
      'broken by a template error, which the PR introduced',
      { errors: [] },
      { errors: [templateError] },
      [ownObjectChange],
    ],
    [
      'broken at base and head, and left alone',
      { errors: [templateError] },
      { errors: [templateError] },
      [],
    ],
  ] as const)('leaves out a producer %s', (_case, base, head, changes) => {
    expect(unassessedProducers(input(base, head, [...changes]))).toEqual([]);
  });

  describe('whose chart source the PR moves', () => {
    const release = (spec: Record<string, unknown>) =>
      rendered(
        {
          apiVersion: 'helm.toolkit.fluxcd.io/v2',
          kind: 'HelmRelease',
          metadata: { name: 'runner', namespace: 'apps' },
          spec,
        },
        kustomization('apps'),
      );
    const ociRepositoryChange = {
      id: 'source.toolkit.fluxcd.io/OCIRepository/apps/runner-chart',
      status: 'changed',
    } as ResourceChange;
    const sides = (object: ReturnType<typeof release>[]) => {
      const side = () => cluster(object, [unreachable(RUNNER)], [RUNNER]);
      return { base: side(), head: side() };
    };
    const diffOf = (changes: ResourceChange[]) =>
      ({ cluster: 'home', changes, summary: {} }) as ClusterDiff;

    it('lists a release whose chartRef OCIRepository moves, the release object untouched', () => {
      const chartRef = release({ chartRef: { kind: 'OCIRepository', name: 'runner-chart' } });
      const found = unassessedProducers({
        diff: diffOf([ociRepositoryChange]),
        ...sides([chartRef]),
      });
      expect(found).toEqual([{ producer: RUNNER, side: 'both', reason: 'chart unavailable' }]);
    });

    it("leaves it out when the moved OCIRepository is another release's", () => {
      const other = release({ chartRef: { kind: 'OCIRepository', name: 'other-chart' } });
      expect(
        unassessedProducers({ diff: diffOf([ociRepositoryChange]), ...sides([other]) }),
      ).toEqual([]);
    });
  });

  it('lists one broken at base and head whose own object the PR changes', () => {
    const broken = input({ errors: [templateError] }, { errors: [templateError] }, [
      ownObjectChange,
    ]);
    expect(unassessedProducers(broken)).toEqual([
      { producer: RUNNER, side: 'both', reason: 'render error' },
    ]);
  });

  it('says an offline cache miss is only that', () => {
    const offline = input({ errors: [] }, { errors: [unreachable(RUNNER, true)] });
    expect(unassessedProducers(offline)[0]?.reason).toBe('chart not in the offline cache');
  });
});

describe('producers that were not rendered at all', () => {
  const APPS = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' } as const;
  const NOT_MAPPED =
    'source GitRepository/flux-system/infra is not this repository and is not mapped ' +
    '(use --source infra=DIR)';
  const skippedCluster = (skipped: string | undefined, present = true): RenderedCluster => {
    const c = cluster([], [], present ? [APPS] : []);
    if (skipped !== undefined) for (const p of c.producers) p.skipped = skipped;
    return c;
  };
  const appsChanged = {
    id: 'kustomize.toolkit.fluxcd.io/Kustomization/flux-system/apps',
    status: 'changed',
  } as ResourceChange;
  const diff = (changes: ResourceChange[]) =>
    ({ cluster: 'home', changes, summary: {} }) as ClusterDiff;

  it('lists a skipped Kustomization whose own object the PR changes', () => {
    const found = unassessedProducers({
      diff: diff([appsChanged]),
      base: skippedCluster(NOT_MAPPED),
      head: skippedCluster(NOT_MAPPED),
    });
    expect(found).toEqual([
      { producer: APPS, side: 'both', reason: 'source not mapped (--source)' },
    ]);
  });

  it('lists a Kustomization the PR adds that is skipped', () => {
    const found = unassessedProducers({
      diff: diff([]),
      base: skippedCluster(undefined, false),
      head: skippedCluster('not rendered: flux-local failed (see the error on flux-local)'),
    });
    expect(found).toEqual([{ producer: APPS, side: 'head', reason: 'not rendered by flux-local' }]);
  });

  it('lists one skipped on both sides whose source is in neither revision', () => {
    const notFound = 'source OCIRepository/flux-system/flux-system was not found';
    const found = unassessedProducers({
      diff: diff([]),
      base: skippedCluster(notFound),
      head: skippedCluster(notFound),
    });
    expect(found).toEqual([{ producer: APPS, side: 'both', reason: 'source not found' }]);
  });

  it('leaves out one skipped on both sides that the PR leaves alone', () => {
    const found = unassessedProducers({
      diff: diff([]),
      base: skippedCluster(NOT_MAPPED),
      head: skippedCluster(NOT_MAPPED),
    });
    expect(found).toEqual([]);
  });
});

describe('the verdict while something is not assessed', () => {
  const unassessed = [{ producer: RUNNER, side: 'both' as const, reason: 'chart unavailable' }];
  const tagBump = {
    id: 'apps/Deployment/apps/web',
    kind: 'Deployment',
    status: 'changed',
    fields: [{ path: 'spec.template.spec.containers[web].image', change: 'changed' }],
  } as ResourceChange;

  it('is at least caution, never routine, and says so before anything else', () => {
    const verdict = computeVerdict([], [tagBump], 0, unassessed);
    expect(verdict).toMatchObject({ level: 'caution', routine: false, unassessed: 1 });
    expect(verdict.headline).toBe(
      'not assessed: 1 changed HelmRelease could not be rendered: chart unavailable; ' +
        'No risky changes found in 1 changed object (1 changed)',
    );
  });

  it('does not call producers changed when only their source is unknown', () => {
    const apps = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' } as const;
    const nowhere = [{ producer: apps, side: 'both' as const, reason: 'source not found' }];
    expect(computeVerdict([], [], 0, nowhere).headline).toBe(
      'not assessed: 1 Kustomization could not be rendered: source not found; ' +
        'No changes to the rendered cluster',
    );
  });

  it('is routine for the same change when everything was assessed', () => {
    expect(computeVerdict([], [tagBump], 0)).toMatchObject({ routine: true, unassessed: 0 });
  });
});
