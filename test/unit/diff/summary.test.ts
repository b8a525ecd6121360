/** The cluster summary: counts, what was touched, render errors a PR introduces or fixes. */
import { describe, expect, it } from 'vitest';
import { diffClusters } from '../../../src/diff/index.js';
import type { Manifest, RenderError } from '../../../src/model/render.js';
import { cluster, configMap, diff, helmRelease, kustomization, rendered } from './build-cluster.js';

const NONE = { labels: [], annotations: [], fields: [] };
const INFRA = kustomization('infra');
const REDIS = helmRelease('redis', 'data');

const crd = (name: string, served: boolean): Manifest => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name },
  spec: { versions: [{ name: 'v1', served }] },
});
const namespace = (name: string, tier: string): Manifest => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { tier } },
});

describe('the summary of a cluster diff', () => {
  it('counts changes by status and names the producers, namespaces and CRDs touched', () => {
    const base = [
      rendered(configMap('kept', { a: '1' })),
      rendered(configMap('gone', { a: '1' }, 'old-ns'), INFRA),
      rendered(configMap('edited', { a: '1' }, 'data'), REDIS),
      rendered(crd('widgets.example.com', false), INFRA),
      rendered(namespace('team', 'a'), INFRA),
      rendered(configMap('moving', { a: '1' }, 'data'), REDIS),
    ];
    const head = [
      rendered(configMap('kept', { a: '1' })),
      rendered(configMap('edited', { a: '2' }, 'data'), REDIS),
      rendered(crd('widgets.example.com', true), INFRA),
      rendered(crd('gadgets.example.com', true), INFRA),
      rendered(namespace('team', 'b'), INFRA),
      rendered(configMap('moving', { a: '1' }, 'data'), kustomization('data')),
    ];
    const { summary } = diff(base, head);
    expect(summary).toMatchObject({
      added: 1,
      removed: 1,
      changed: 3,
      moved: 1,
      producers: [
        'HelmRelease/data/redis',
        'Kustomization/flux-system/data',
        'Kustomization/flux-system/infra',
      ],
      namespaces: ['data', 'old-ns', 'team'],
      crds: ['gadgets.example.com', 'widgets.example.com'],
    });
  });

  it('leaves an unchanged object out of every list', () => {
    const objects = [rendered(configMap('kept', { a: '1' }, 'quiet'), INFRA)];
    expect(diff(objects, objects).summary).toEqual({
      added: 0,
      removed: 0,
      changed: 0,
      moved: 0,
      producers: [],
      namespaces: [],
      crds: [],
      images: [],
      charts: [],
      errorsIntroduced: [],
      errorsFixed: [],
    });
  });
});

describe('render errors across a PR', () => {
  const error = (producer: typeof INFRA, message: string): RenderError => ({ producer, message });
  // Every producer named exists on both sides unless `gone` says it is removed at head.
  const errors = (base: RenderError[], head: RenderError[], gone: string[] = []) => {
    const refs = [...base, ...head].map((e) => e.producer);
    const atHead = refs.filter((r) => !gone.includes(r.name));
    return diffClusters(cluster([], base, refs), cluster([], head, atHead), {
      cluster: 'home',
      normalize: NONE,
    }).summary;
  };

  it.each<[string, RenderError[], RenderError[], RenderError[], RenderError[]]>([
    [
      'a producer that breaks introduces its error',
      [],
      [error(INFRA, 'kustomize build failed')],
      [error(INFRA, 'kustomize build failed')],
      [],
    ],
    [
      'a new producer that fails introduces its error',
      [error(INFRA, 'x')],
      [error(INFRA, 'x'), error(REDIS, 'chart not found')],
      [error(REDIS, 'chart not found')],
      [],
    ],
    [
      'a producer that renders again fixes its error',
      [error(REDIS, 'chart not found')],
      [],
      [],
      [error(REDIS, 'chart not found')],
    ],
    [
      'a producer still failing is neither, even with another message',
      [error(INFRA, 'line 3: bad')],
      [error(INFRA, 'line 4: bad')],
      [],
      [],
    ],
    ['the same failure on both sides is neither', [error(INFRA, 'x')], [error(INFRA, 'x')], [], []],
  ])('%s', (_, base, head, introduced, fixed) => {
    const summary = errors(base, head);
    expect(summary.errorsIntroduced).toEqual(introduced);
    expect(summary.errorsFixed).toEqual(fixed);
  });

  it('does not count the errors of a producer the PR removes as fixed', () => {
    const summary = errors([error(REDIS, 'a tag is required')], [], ['redis']);
    expect(summary.errorsFixed).toEqual([]);
    expect(summary.errorsIntroduced).toEqual([]);
  });

  it('does not count the errors of a producer that head did not render at all as fixed', () => {
    const base = cluster([], [error(REDIS, 'a tag is required')], [REDIS]);
    const head = cluster([], [], [REDIS]);
    head.producers[0]!.skipped = 'not rendered: flux-local stops the whole run at the error';
    const summary = diffClusters(base, head, { cluster: 'home', normalize: NONE }).summary;
    expect(summary.errorsFixed).toEqual([]);
  });

  it('hides credentials quoted in an error message', () => {
    const token = `ghp_${'Z'.repeat(36)}`;
    const summary = errors(
      [],
      [error(INFRA, `clone failed for https://${token}@github.com/acme/repo`)],
    );
    expect(summary.errorsIntroduced[0]?.message).toBe(
      'clone failed for https://<redacted>@github.com/acme/repo',
    );
  });
});
