/**
 * The real-repository benchmark's reading of both tools' output and its acceptance checks,
 * on recorded shapes of fluxlens's JSON report and flate's HTML page: no mirrors, no tools,
 * no network.
 */
import { describe, expect, it } from 'vitest';
import { checkCase, skippedProducers } from '../../bench/real-repos-checks.js';
import { errorCode, summarizeFlate, summarizeFluxlens } from '../../bench/real-repos-read.js';

const kromgo = { kind: 'HelmRelease', namespace: 'observability', name: 'kromgo' };
const appKs = { kind: 'Kustomization', namespace: 'observability', name: 'kromgo' };
const apps = { kind: 'Kustomization', namespace: 'flux-system', name: 'cluster-apps' };
const unavailable =
  'chart unavailable: chart oci://ghcr.io/x/app-template: dial tcp: lookup ghcr.io: no such host';

interface Overrides {
  verdict?: { level: string; routine: boolean };
  unassessed?: unknown[];
  charts?: unknown[];
  changes?: unknown[];
  findings?: unknown[];
  errors?: unknown[];
}

/** A fluxlens JSON report as `diff --format json` writes it, cut to one cluster. */
function report(o: Overrides = {}): unknown {
  const cluster = {
    name: 'kubernetes/flux/cluster',
    path: 'kubernetes/flux/cluster',
    producers: [],
    images: [],
    unassessed: o.unassessed ?? [],
    ...(o.charts ? { charts: o.charts } : {}),
  };
  return {
    schemaVersion: 1,
    verdict: {
      headline: 'x',
      counts: { info: 0, caution: 0, danger: 0 },
      ...(o.verdict ?? { level: 'none', routine: false }),
    },
    summary: { added: 0, removed: 0, changed: 1, moved: 0, findings: 0 },
    clusters: [cluster],
    changes: o.changes ?? [],
    findings: o.findings ?? [],
    errors: o.errors ?? [],
    timings: { total: 1 },
  };
}

const change = (kind: string, producer: object, paths: string[], extra: object = {}) => ({
  status: 'changed',
  kind,
  name: 'x',
  producer,
  fields: paths.map((path) => ({ path, change: 'changed' })),
  diff: '',
  ...extra,
});

const tagMove = change('OCIRepository', appKs, ['spec.ref.tag']);
const unassessedKromgo = [{ producer: kromgo, side: 'both', reason: 'chart unavailable' }];
const chartRow = {
  chart: 'app-template',
  source: 'oci://x',
  from: '5.0.1',
  to: '5.1.0',
  producers: ['HelmRelease/observability/kromgo'],
};

describe('reading a fluxlens report', () => {
  it('counts render errors by side and cause, and keeps the content errors a PR introduced', () => {
    const s = summarizeFluxlens(
      report({
        errors: [
          { producer: kromgo, message: unavailable, side: 'base', introduced: false },
          { producer: kromgo, message: unavailable, side: 'head', introduced: false },
          {
            producer: appKs,
            message: "kustomize build failed: missing 'app/x.yaml'",
            side: 'head',
            introduced: true,
          },
        ],
      }),
    );
    expect(s.errors).toEqual({
      'base chart-unavailable': 1,
      'head chart-unavailable': 1,
      'head content': 1,
    });
    expect(s.introducedContentErrors).toEqual([
      "Kustomization/observability/kromgo: kustomize build failed: missing 'app/x.yaml'",
    ]);
  });

  it("names the producers of changes flate would show, leaving out Secrets and CRDs as flate's defaults do", () => {
    const secretOwner = { kind: 'Kustomization', namespace: 'default', name: 'secrets-only' };
    const s = summarizeFluxlens(
      report({
        changes: [
          change('Deployment', appKs, ['spec.replicas']),
          change('Secret', secretOwner, ['data.password']),
          change('ConfigMap', appKs, [], { status: 'moved', previousProducer: apps }),
        ],
      }),
    );
    expect(s.changedProducers).toEqual([
      'Kustomization/flux-system/cluster-apps',
      'Kustomization/observability/kromgo',
    ]);
  });

  it.each([
    ['chart-unavailable', unavailable],
    [
      'applied-twice',
      'ConfigMap default/x is also applied by Kustomization flux-system/y: Flux would apply both',
    ],
    ['content', 'helm template failed: nil pointer evaluating .Values.x'],
  ])('calls an error %s from its words', (code, message) => {
    expect(errorCode(message)).toBe(code);
  });
});

describe('the acceptance checks', () => {
  it.each([
    [
      'fails a none verdict with a changed producer unassessed',
      { level: 'none', routine: false },
      unassessedKromgo,
      'fail',
    ],
    [
      'fails a routine verdict with a changed producer unassessed',
      { level: 'info', routine: true },
      unassessedKromgo,
      'fail',
    ],
    [
      'passes a caution verdict that says what was not assessed',
      { level: 'caution', routine: false },
      unassessedKromgo,
      'pass',
    ],
    [
      'has nothing to judge when everything was assessed',
      { level: 'none', routine: true },
      [],
      'n/a',
    ],
  ])('(a) %s', (_name, verdict, unassessed, status) => {
    const s = summarizeFluxlens(report({ verdict, unassessed }));
    expect(checkCase(s, undefined).unassessed.status).toBe(status);
  });

  it('(a) fails a routine chart move whose chart could not be fetched, though nothing is listed unassessed', () => {
    const s = summarizeFluxlens(
      report({
        verdict: { level: 'none', routine: true },
        changes: [tagMove],
        charts: [chartRow],
        errors: [
          { producer: kromgo, message: unavailable, side: 'base', introduced: false },
          { producer: kromgo, message: unavailable, side: 'head', introduced: false },
        ],
      }),
    );
    const check = checkCase(s, undefined).unassessed;
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('not listed as unassessed: HelmRelease/observability/kromgo');
  });

  it('(a) fails a none verdict on a changed OCIRepository whose release could not fetch it, without the charts field', () => {
    const source = { ...tagMove, namespace: 'observability', name: 'kromgo' };
    const message = `chart unavailable: chart oci://ghcr.io/x/kromgo from OCIRepository/observability/kromgo: no such host`;
    const s = summarizeFluxlens(
      report({
        verdict: { level: 'none', routine: false },
        changes: [source],
        errors: [{ producer: kromgo, message, side: 'head', introduced: false }],
      }),
    );
    expect(checkCase(s, undefined).unassessed).toMatchObject({ status: 'fail' });
    expect(s.evidence.unrenderedChartMoves).toEqual(['HelmRelease/observability/kromgo']);
  });

  it('(b) fails a danger render-error-introduced on a release whose chart could not be fetched', () => {
    const s = summarizeFluxlens(
      report({
        verdict: { level: 'danger', routine: false },
        findings: [
          {
            rule: 'render-error-introduced',
            level: 'danger',
            producer: kromgo,
            cluster: 'c',
            resource: kromgo,
            message: 'm',
          },
        ],
        errors: [{ producer: kromgo, message: unavailable, side: 'head', introduced: true }],
      }),
    );
    const check = checkCase(s, undefined).unreachable;
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('HelmRelease/observability/kromgo');
  });

  it.each([
    ['has nothing to judge without a chart version move', {}, 'n/a'],
    ['reads n/a on a report without the charts field', { changes: [tagMove] }, 'n/a'],
    ['fails a chart version move that is not listed', { changes: [tagMove], charts: [] }, 'fail'],
    [
      'passes a listed, routine move',
      { changes: [tagMove], charts: [chartRow], verdict: { level: 'none', routine: true } },
      'pass',
    ],
    [
      'passes a listed move held back from routine by its unassessed release',
      {
        changes: [tagMove],
        charts: [chartRow],
        unassessed: unassessedKromgo,
        verdict: { level: 'caution', routine: false },
      },
      'pass',
    ],
    [
      'fails a listed move that is alone and still not routine',
      { changes: [tagMove], charts: [chartRow], verdict: { level: 'none', routine: false } },
      'fail',
    ],
  ])('(c) %s', (_name, overrides: Overrides, status) => {
    expect(checkCase(summarizeFluxlens(report(overrides)), undefined).charts.status).toBe(status);
  });

  it('(d) lists the Kustomizations only one tool names, flate keying a child under the wrong namespace', () => {
    const s = summarizeFluxlens(
      report({ changes: [change('HelmRelease', appKs, ['spec.values.image.tag'])] }),
    );
    const html = flatePage([
      ['Kustomization flux-system/kromgo (kubernetes/apps/observability/kromgo/app)', 1],
    ]);
    const check = checkCase(s, summarizeFlate(html, '')).agreement;
    expect(check).toMatchObject({
      status: 'differs',
      onlyFluxlens: ['Kustomization/observability/kromgo'],
      onlyFlate: ['Kustomization/flux-system/kromgo'],
    });
  });
});

/** The parts of flate's `diff -o html` page that are read: the counts and the tree. */
function flatePage(parents: Array<[string, number]>): string {
  const tree = parents.map(
    ([summary, leaves]) =>
      `<details class="tree-parent" open>\n<summary>${summary}</summary>\n<details class="tree-kind" open><summary>HelmRelease <span class="leaf-stat">1</span></summary>` +
      '<a class="tree-leaf" href="#r0" data-status="changed"></a>'.repeat(leaves) +
      '</details></details>',
  );
  return `<button type="button" class="count c-changed">2 changed</button><button type="button" class="count c-added">1 added</button><button type="button" class="count c-removed">0 removed</button>\n<nav>${tree.join('\n')}</nav>`;
}

describe("reading flate's changed-only diff", () => {
  it('takes the counts, each producer group with its objects, and the reconcile failures by cause', () => {
    const stderr = [
      'flate error: both snapshots had reconcile failures',
      'orig snapshot: reconcile completed with 1 failure(s):',
      `  OCIRepository/flux-system/app-template: resolve 5.1.0: Head "https://ghcr.io/v2/": dial tcp: lookup ghcr.io: no such host`,
      'current snapshot: reconcile completed with 2 failure(s):',
      '  OCIRepository/flux-system/app-template: resolve 5.1.0: dial tcp: lookup ghcr.io: no such host',
      "  Kustomization/flux-system/cluster-apps: write kustomization.yaml: illegal name 'a+b'",
    ].join('\n');
    const s = summarizeFlate(
      flatePage([
        ['Kustomization flux-system/cluster-apps (kubernetes/apps)', 2],
        ['HelmRelease default/echo', 1],
      ]),
      stderr,
    );
    expect(s.counts).toEqual({ added: 1, changed: 2, removed: 0 });
    expect(s.groups).toEqual([
      { producer: 'Kustomization/flux-system/cluster-apps', path: 'kubernetes/apps', objects: 2 },
      { producer: 'HelmRelease/default/echo', path: '', objects: 1 },
    ]);
    expect(s.failures).toEqual({
      'orig unavailable': 1,
      'current unavailable': 1,
      'current other': 1,
    });
    expect(s.otherFailures).toEqual([
      "current: Kustomization/flux-system/cluster-apps: write kustomization.yaml: illegal name 'a+b'",
    ]);
  });
});

describe("reading fluxlens's render output", () => {
  it('lists the producers it skipped, with the reason', () => {
    const json = {
      schemaVersion: 1,
      objects: [],
      errors: [],
      producers: [
        {
          kind: 'Kustomization',
          namespace: 'flux-system',
          name: 'cluster',
          skipped: 'source OCIRepository/flux-system/flux-system was not found',
        },
        { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
      ],
    };
    expect(skippedProducers(json)).toEqual([
      'Kustomization/flux-system/cluster: source OCIRepository/flux-system/flux-system was not found',
    ]);
  });
});
