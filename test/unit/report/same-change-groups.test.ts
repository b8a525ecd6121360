/**
 * The same change in many objects is shown once in every report: "The same change in 65
 * HelmReleases: − spec.install.strategy", the objects listed, one diff. Changes built by
 * the real diff step, so their text diffs carry each object's own context.
 */
import { describe, expect, it } from 'vitest';
import { diffClusters } from '../../../src/diff/index.js';
import type { AnalysisError } from '../../../src/model/analysis.js';
import type { ResourceChange } from '../../../src/model/change.js';
import type { Manifest, ProducerRef, RenderedObject } from '../../../src/model/render.js';
import { groupChanges } from '../../../src/report/group-changes.js';
import { pageData } from '../../../src/report/html-page-data.js';
import { renderHtml } from '../../../src/report/html.js';
import { renderJson } from '../../../src/report/json.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { renderText } from '../../../src/report/text.js';
import { analysis, clusterSummary, finding, kustomization } from './analysis-builders.js';
import { expectBalanced } from './markdown-structure.js';

const NO_EXTRAS = { labels: [], annotations: [], fields: [] };

function release(name: string, strategy: string | undefined, chart = name): Manifest {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name, namespace: name },
    spec: {
      interval: '1h',
      chart: { spec: { chart, sourceRef: { kind: 'HelmRepository', name: 'charts' } } },
      install: {
        remediation: { retries: 3 },
        ...(strategy !== undefined && { strategy: { name: strategy } }),
      },
      values: { replicas: name.length },
    },
  };
}

const appOf = (name: string): ProducerRef => kustomization(name);

/** Each app's HelmRelease at base and head, from its own Kustomization, by the diff step. */
function changesOf(
  apps: Array<[string, string | undefined, string | undefined]>,
): ResourceChange[] {
  const side = (pick: 1 | 2): RenderedObject[] =>
    apps.map((app) => ({ producer: appOf(app[0]), manifest: release(app[0], app[pick]) }));
  return diffClusters(
    { producers: [], objects: side(1), errors: [], tools: {} },
    { producers: [], objects: side(2), errors: [], tools: {} },
    { cluster: 'default', normalize: NO_EXTRAS },
  ).changes;
}

const names = Array.from({ length: 65 }, (_, i) => `app-${String(i).padStart(2, '0')}`);
const patch = changesOf(names.map((n) => [n, 'RetryOnFailure', undefined]));

describe('the same change in many objects', () => {
  it('is one group in the PR comment: its fields, every object, one diff', () => {
    const markdown = renderMarkdown(analysis({ changes: patch }));
    expectBalanced(markdown);
    expect(markdown).toContain(
      '<details><summary>The same change in 65 HelmReleases: − <code>spec.install.strategy</code></summary>',
    );
    for (const name of names) {
      expect(markdown).toContain(
        `- \`HelmRelease/${name}/${name}\` from \`Kustomization/flux-system/${name}\``,
      );
    }
    expect(markdown.match(/```diff/g)).toHaveLength(1);
    expect(markdown).toContain('-    strategy:\n-      name: RetryOnFailure\n');
    expect(markdown.length).toBeLessThan(12_000);
    // The JSON stays per object: grouping is how reports show it, not what was found.
    expect(JSON.parse(renderJson(analysis({ changes: patch }))).changes).toHaveLength(65);
  });

  it('keeps apart changes that set different values, and a change with a finding above info', () => {
    const changes = changesOf([
      ['a', 'RetryOnFailure', undefined],
      ['b', 'RetryOnFailure', undefined],
      ['c', 'RemediateOnFailure', undefined],
      ['d', 'RetryOnFailure', undefined],
      ['e', 'RetryOnFailure', 'RemediateOnFailure'],
    ]);
    const result = analysis({
      changes,
      findings: [
        finding({
          level: 'caution',
          message: 'risky',
          resource: { kind: 'HelmRelease', namespace: 'd', name: 'd' },
        }),
        finding({
          level: 'info',
          message: 'note',
          resource: { kind: 'HelmRelease', namespace: 'b', name: 'b' },
        }),
      ],
    });
    const [cluster] = groupChanges(result);
    expect(cluster?.same.map((g) => [g.level, g.changes.map((c) => c.name), g.levels])).toEqual([
      ['info', ['b', 'a'], ['info', 'none']],
    ]);
    expect(cluster?.producers.map((p) => [p.key, p.level])).toEqual([
      ['Kustomization/flux-system/d', 'caution'],
      ['Kustomization/flux-system/c', 'none'],
      ['Kustomization/flux-system/e', 'none'],
    ]);
    const markdown = renderMarkdown(result);
    // Riskiest first: the caution object on its own, then the group with its info badge.
    const caution = markdown.indexOf('<b>CAUTION</b> <code>Kustomization/flux-system/d</code>');
    const group = markdown.indexOf('<b>INFO</b> The same change in 2 HelmReleases');
    expect(caution).toBeGreaterThan(0);
    expect(group).toBeGreaterThan(caution);
    expect(markdown).toContain('- `HelmRelease/b/b` from `Kustomization/flux-system/b` **INFO**\n');
  });

  it('shows the level of a risky producer on the group its object joins', () => {
    const result = analysis({
      changes: patch.slice(0, 3),
      findings: [
        finding({
          level: 'danger',
          message: 'about the producer',
          resource: { kind: 'Kustomization', namespace: 'flux-system', name: 'app-01' },
          producer: kustomization('flux-system'),
        }),
      ],
    });
    const [cluster] = groupChanges(result);
    expect(cluster?.same.map((g) => [g.level, g.changes[0]?.name])).toEqual([['danger', 'app-01']]);
    expect(cluster?.level).toBe('danger');
  });

  it('takes an added object in many namespaces for one change, its own name and namespace aside', () => {
    const added = (name: string): RenderedObject => ({
      producer: appOf(name),
      manifest: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'flags', namespace: name },
        data: { beta: 'on' },
      },
    });
    const changes = diffClusters(
      { producers: [], objects: [], errors: [], tools: {} },
      { producers: [], objects: ['x', 'y', 'z'].map(added), errors: [], tools: {} },
      { cluster: 'default', normalize: NO_EXTRAS },
    ).changes;
    const text = renderText(analysis({ changes }), { color: false });
    expect(text).toContain(
      '  The same change in 3 ConfigMaps: added\n    ConfigMap/x/flags from Kustomization/flux-system/x\n',
    );
    expect(text.match(/\+ {2}beta: on/g)).toHaveLength(1);
  });

  it('is a branch of the HTML tree, and its objects are in no producer', () => {
    const data = pageData(analysis({ changes: patch }));
    const [cluster] = data.clusters;
    expect(cluster?.groups.map((g) => [g.label, g.objects.length])).toEqual([
      ['The same change in 65 HelmReleases: − spec.install.strategy', 65],
    ]);
    expect(cluster?.producers).toEqual([]);
    expect(cluster?.counts.changed).toBe(65);
  });
});

describe('render errors in the reports', () => {
  const error = (producer: string, side: 'base' | 'head', introduced = false): AnalysisError => ({
    producer: kustomization(producer),
    message: producer === 'alone' ? 'kustomization.yaml is missing' : `${producer} does not build`,
    cluster: 'default',
    side,
    introduced,
  });
  const result = analysis({
    changes: patch.slice(0, 2),
    clusters: [clusterSummary({ producers: ['Kustomization/flux-system/touched'] })],
    errors: [
      error('alone', 'base'),
      error('touched', 'base'),
      error('alone', 'head'),
      error('touched', 'head'),
      error('new', 'head', true),
    ],
  });

  it('are listed once each in the HTML page, after the changes', () => {
    const html = renderHtml(result);
    expect(html).toContain('<h2 id="errors-title">Render errors (3)</h2>');
    expect(html.indexOf('id="errors-title"')).toBeGreaterThan(html.indexOf('id="changes-title"'));
    expect(html).toContain(
      '<strong>Kustomization/flux-system/alone</strong> in cluster default, at base and head',
    );
    expect(html).toContain(
      '<strong>Kustomization/flux-system/new</strong> in cluster default, introduced at head',
    );
    expect(html.match(/Kustomization\/flux-system\/alone</g)).toHaveLength(1);
  });

  it('are folded in the PR comment when they failed at base too, touched producers first', () => {
    const markdown = renderMarkdown(result);
    expectBalanced(markdown);
    expect(markdown).toContain(
      '<details><summary>2 render errors at head also failed at base</summary>\n\n' +
        '- `Kustomization/flux-system/touched`: touched does not build\n' +
        '- `Kustomization/flux-system/alone`: kustomization.yaml is missing\n\n</details>',
    );
  });
});
