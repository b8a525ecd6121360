/**
 * A PR comment stays about the PR: render errors it neither broke nor fixed are one folded
 * line per cause after the diffs, what was not assessed is one line per cause after the
 * findings, and a one-line image bump on a fleet of 150 Kustomizations, sixty of whose
 * releases cannot fetch their chart at either revision, fits in 10,000 characters.
 */
import { describe, expect, it } from 'vitest';
import type { AnalysisError, AnalysisResult } from '../../../src/model/analysis.js';
import type { ProducerRef, RenderError } from '../../../src/model/render.js';
import { CHECK_RUN_MAX_CHARS, renderCheckRun } from '../../../src/report/check-run.js';
import { errorCause } from '../../../src/report/error-causes.js';
import { MARKDOWN_MAX_CHARS, renderMarkdown } from '../../../src/report/markdown.js';
import { renderText } from '../../../src/report/text.js';
import {
  analysis,
  change,
  clusterSummary,
  finding,
  helmRelease,
  kustomization,
} from './analysis-builders.js';
import { expectBalanced } from './markdown-structure.js';

const CLUSTER = 'clusters/prod';

/** How helm pull words a registry it cannot reach, for a chart of `ghcr.io` or another host. */
function unreachable(release: ProducerRef, host = 'ghcr.io'): string {
  const chart = `oci://${host}/bjw-s-labs/helm/app-template`;
  return (
    `chart unavailable: chart ${chart} from OCIRepository/${release.namespace}/${release.name}: ` +
    `helm pull failed: Error: failed to perform "FetchReference" on source: Get ` +
    `"https://${host}/v2/bjw-s-labs/helm/app-template/manifests/4.2.0": dial tcp: lookup ${host} ` +
    'on 10.0.0.1:53: no such host'
  );
}

/** The same error at base and head, as a producer that fails at both revisions has it. */
function bothSides(error: RenderError, cluster = CLUSTER): AnalysisError[] {
  return (['base', 'head'] as const).map((side) => ({
    ...error,
    cluster,
    side,
    introduced: false,
  }));
}

const releases = (n: number, prefix = 'app') =>
  Array.from({ length: n }, (_, i) => helmRelease(`${prefix}-${String(i).padStart(3, '0')}`));

const chartErrors = (refs: readonly ProducerRef[], host = 'ghcr.io'): AnalysisError[] =>
  refs.flatMap((producer) =>
    bothSides({ producer, message: unreachable(producer, host), code: 'chart-unavailable' }),
  );

/**
 * A one-line image bump in a fleet of 150 Kustomizations whose 60 HelmReleases cannot
 * fetch their charts (from ghcr.io) at base or head: one changed Deployment, one finding,
 * one image change.
 */
function imageBumpInFleet(): AnalysisResult {
  const diff =
    '@@ -32,7 +32,7 @@\n           envFrom:\n-          image: registry.example.com/team-01/web:1.19.5\n' +
    '+          image: registry.example.com/team-01/web:1.20.0\n           name: app\n';
  const bump = change({
    name: 'web',
    namespace: 'team-01',
    cluster: CLUSTER,
    producer: kustomization('web'),
    file: 'apps/team-01/web/deployment.yaml',
    fields: [{ path: 'spec.template.spec.containers[app].image', change: 'changed' }],
    diff,
  });
  const result = analysis({
    changes: [bump],
    findings: [
      finding({
        level: 'info',
        rule: 'image-unpinned',
        cluster: CLUSTER,
        resource: { kind: 'Deployment', namespace: 'team-01', name: 'web' },
        message:
          'Deployment team-01/web runs registry.example.com/team-01/web:1.20.0 without a digest',
      }),
    ],
    clusters: [
      clusterSummary({
        name: CLUSTER,
        path: CLUSTER,
        changed: 1,
        producers: ['Kustomization/flux-system/web'],
        images: [{ repository: 'registry.example.com/team-01/web', from: '1.19.5', to: '1.20.0' }],
        unassessed: [],
      }),
    ],
    errors: chartErrors(releases(60)),
  });
  result.verdict = {
    ...result.verdict,
    routine: true,
    headline: 'Routine: only image tags change',
  };
  return result;
}

function positions(text: string, needles: string[]): number[] {
  return needles.map((needle) => {
    const at = text.indexOf(needle);
    expect(at, needle).toBeGreaterThanOrEqual(0);
    return at;
  });
}

describe('a one-line image bump in a fleet whose charts are unreachable at both revisions', () => {
  const result = imageBumpInFleet();

  it('fits in 10,000 characters, the finding, image and diff before the folded errors', () => {
    const markdown = renderMarkdown(result);
    expect(markdown.length).toBeLessThan(10_000);
    expectBalanced(markdown);
    const order = positions(markdown, [
      '#### Findings',
      'without a digest',
      '`registry.example.com/team-01/web`: `1.19.5` → `1.20.0`',
      '+          image: registry.example.com/team-01/web:1.20.0',
      '<details><summary>60 render errors at head also failed at base</summary>',
    ]);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('says the sixty failing releases once, by cause, naming three of them', () => {
    const markdown = renderMarkdown(result);
    expect(markdown).toContain(
      '- **60 HelmReleases**: charts from ghcr.io unavailable: `HelmRelease/apps/app-000`, ' +
        '`HelmRelease/apps/app-001`, `HelmRelease/apps/app-002` and 57 more\n',
    );
    expect(markdown).toContain(
      '  - e.g. `HelmRelease/apps/app-000`: chart unavailable: chart oci://',
    );
    expect(markdown.match(/HelmRelease\/apps\/app-/g)).toHaveLength(4);
  });

  it('keeps the check-run summary as short, with the same folded line', () => {
    const { summary } = renderCheckRun(result, 'danger');
    expect(summary.length).toBeLessThan(10_000);
    expect(summary).toContain('<details><summary>60 render errors at head also failed at base');
    expect(summary).toContain('- **60 HelmReleases**: charts from ghcr.io unavailable: ');
  });

  it('counts them in the terminal with one line per cause', () => {
    const text = renderText(result, { color: false });
    expect(text).toContain(
      '60 render errors at head also failed at base:\n' +
        '  60 HelmReleases: charts from ghcr.io unavailable: HelmRelease/apps/app-000, ' +
        'HelmRelease/apps/app-001, HelmRelease/apps/app-002 and 57 more\n',
    );
  });
});

describe('render errors grouped by cause', () => {
  const ref = helmRelease('web');
  it.each<[string, RenderError, string]>([
    [
      'a chart from an OCI registry: its host',
      { producer: ref, message: unreachable(ref, 'quay.io'), code: 'chart-unavailable' },
      'charts from quay.io unavailable',
    ],
    [
      'a chart from a Helm repository that answered an error: its host',
      {
        producer: ref,
        message:
          "chart unavailable: chart 'web' from HelmRepository/flux-system/charts: " +
          'https://charts.example.com/stable/index.yaml answered HTTP 503',
        code: 'chart-unavailable',
      },
      'charts from charts.example.com unavailable',
    ],
    [
      'a chart missing from the offline cache: the source it names',
      {
        producer: ref,
        message:
          "chart unavailable: chart 'web' from HelmRepository/flux-system/charts version '1.0.0' " +
          'is not in the cache (offline)',
        code: 'chart-unavailable',
        offline: true,
      },
      'charts from HelmRepository/flux-system/charts not in the offline cache',
    ],
    [
      'a refused remote base: its host',
      {
        producer: kustomization('infra'),
        message: "remote resource 'https://github.com/org/repo//base?ref=v1' is disabled",
        code: 'remote-base-refused',
      },
      'remote kustomize bases from github.com not fetched (remote bases are disabled)',
    ],
    [
      'a content error: its message without quoted values, paths, numbers and its own names',
      {
        producer: kustomization('billing', 'team-02'),
        message: "billing: accumulating resources from 'apps/billing': line 12: no such file",
      },
      '…: accumulating resources from …: line …: no such file',
    ],
  ])('words %s', (_what, error, label) => {
    expect(errorCause(error).label).toBe(label);
  });

  it('puts the same content error of many producers together, and different ones apart', () => {
    const broken = (name: string, message: string): RenderError => ({
      producer: kustomization(name),
      message,
    });
    const missing = (name: string) =>
      broken(name, `${name}: path './apps/${name}' not found in flux-system/flux-system`);
    expect(errorCause(missing('billing')).key).toBe(errorCause(missing('ledger-2')).key);
    expect(errorCause(missing('billing')).key).not.toBe(
      errorCause(broken('billing', 'yaml: mapping values are not allowed here')).key,
    );
  });

  it('tells two registries apart, and the same registry at base only from both sides', () => {
    const at = (host: string) =>
      errorCause({ producer: ref, message: unreachable(ref, host), code: 'chart-unavailable' });
    expect(at('ghcr.io').key).not.toBe(at('quay.io').key);
    expect(at('ghcr.io').key).toBe(
      errorCause({
        producer: helmRelease('other'),
        message: unreachable(helmRelease('other')),
        code: 'chart-unavailable',
      }).key,
    );
  });

  it('folds several causes in one list, each a line, biggest first', () => {
    const result = analysis({
      errors: [...chartErrors(releases(4, 'q'), 'quay.io'), ...chartErrors(releases(9))],
    });
    const markdown = renderMarkdown(result);
    positions(markdown, [
      '<details><summary>13 render errors at head also failed at base</summary>',
      '- **9 HelmReleases**: charts from ghcr.io unavailable: ',
      '- **4 HelmReleases**: charts from quay.io unavailable: ',
      '</details>',
    ]);
  });

  it('keeps the errors the PR introduces one line each, before the diffs', () => {
    const introduced = releases(5).map((producer) => ({
      producer,
      message: `values.yaml: line 3: did not find expected key`,
    }));
    const result = analysis({
      changes: [change({ name: 'web' })],
      clusters: [clusterSummary({ errorsIntroduced: introduced })],
      errors: introduced.map((e) => ({ ...e, cluster: 'default', side: 'head', introduced: true })),
    });
    const markdown = renderMarkdown(result);
    for (const e of introduced) {
      expect(markdown).toContain(
        `- \`${`HelmRelease/apps/${e.producer.name}`}\`: values.yaml: line 3: did not find expected key\n`,
      );
    }
    expect(markdown.indexOf('#### Render errors introduced')).toBeLessThan(
      markdown.indexOf('#### Changes'),
    );
    expect(markdown).not.toContain('also failed at base');
  });
});

describe('producers that were not assessed', () => {
  /** A change to a values file 70 releases read, none of whose charts could be fetched. */
  function sharedValuesChange(): AnalysisResult {
    const ghcr = releases(64);
    const quay = releases(6, 'q');
    const result = analysis({
      changes: [change({ name: 'web' })],
      findings: [finding({ level: 'caution', message: 'Scales the web Deployment down' })],
      clusters: [
        clusterSummary({
          unassessed: [...ghcr, ...quay].map((producer) => ({
            producer,
            side: 'both' as const,
            reason: 'chart unavailable',
          })),
        }),
      ],
      errors: [
        ...chartErrors(ghcr).map((e) => ({ ...e, cluster: 'default' })),
        ...chartErrors(quay, 'quay.io').map((e) => ({ ...e, cluster: 'default' })),
      ],
    });
    result.verdict = {
      ...result.verdict,
      level: 'caution',
      headline: 'not assessed: 70 changed HelmReleases could not be rendered: chart unavailable',
      unassessed: 70,
    };
    return result;
  }

  it('are one line per cause after the findings, saying that they were not assessed', () => {
    const markdown = renderMarkdown(sharedValuesChange());
    expect(markdown).toContain(
      '### fluxlens: **CAUTION** · not assessed: 70 changed HelmReleases could not be rendered',
    );
    const order = positions(markdown, [
      '#### Findings',
      'Scales the web Deployment down',
      '#### Not assessed\n\n**70** producers the PR changes could not be rendered, so their ' +
        'changes were not assessed:\n\n',
      '- **64 HelmReleases** could not be rendered at base and head (charts from ghcr.io ' +
        'unavailable): `HelmRelease/apps/app-000`, `HelmRelease/apps/app-001`, ' +
        '`HelmRelease/apps/app-002` and 61 more\n',
      '- **6 HelmReleases** could not be rendered at base and head (charts from quay.io ' +
        'unavailable): `HelmRelease/apps/q-000`, `HelmRelease/apps/q-001`, ' +
        '`HelmRelease/apps/q-002` and 3 more\n',
      '#### Changes',
    ]);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(markdown.length).toBeLessThan(10_000);
  });

  it('keep a producer alone on its own line, with what it could not do', () => {
    const result = analysis({
      clusters: [
        clusterSummary({
          unassessed: [
            { producer: helmRelease('runner'), side: 'head', reason: 'chart unavailable' },
            {
              producer: kustomization('remote'),
              side: 'both',
              reason: 'source not mapped (--source)',
            },
          ],
        }),
      ],
      errors: chartErrors([helmRelease('runner')]).map((e) => ({ ...e, cluster: 'default' })),
    });
    const markdown = renderMarkdown(result);
    expect(markdown).toContain(
      '- `HelmRelease/apps/runner`: could not be rendered at head (charts from ghcr.io ' +
        'unavailable); its changes were not assessed\n',
    );
    expect(markdown).toContain(
      '- `Kustomization/flux-system/remote`: could not be rendered at base and head ' +
        '(source not mapped (--source)); its changes were not assessed\n',
    );
  });

  it('are grouped in the terminal too, after the findings', () => {
    const text = renderText(sharedValuesChange(), { color: false });
    expect(text).toContain(
      'Not assessed\n  70 producers the PR changes could not be rendered, so their changes ' +
        'were not assessed:\n  64 HelmReleases could not be rendered at base and head (charts ' +
        'from ghcr.io unavailable): HelmRelease/apps/app-000, HelmRelease/apps/app-001, ' +
        'HelmRelease/apps/app-002 and 61 more\n',
    );
    expect(text.indexOf('Findings')).toBeLessThan(text.indexOf('Not assessed'));
  });
});

describe('the size limits with the folded lists', () => {
  /**
   * Thousands of producers failing each for its own reason, at both revisions and not
   * assessed, beside diffs that alone would fill a comment.
   */
  function everythingFails(): AnalysisResult {
    const refs = Array.from({ length: 3000 }, (_, i) => kustomization(`k-${i}`));
    const errors = refs.flatMap((producer, i) =>
      bothSides(
        {
          producer,
          message: `${'word '.repeat(i % 50)}reason-${'x'.repeat(i % 7)} ${i}`.repeat(3),
        },
        'default',
      ),
    );
    const diff = `@@ -1,1 +1,1 @@\n${'+ line\n'.repeat(400)}`;
    return analysis({
      changes: Array.from({ length: 400 }, (_, i) =>
        change({ name: `app-${i}`, diff: `${diff}${i}\n` }),
      ),
      clusters: [
        clusterSummary({
          unassessed: refs.map((producer, i) => ({
            producer,
            side: 'both' as const,
            reason: `reason ${i}`,
          })),
        }),
      ],
      errors,
    });
  }

  it('are never exceeded by the comment or the check run, and the folds stay balanced', () => {
    const result = everythingFails();
    const markdown = renderMarkdown(result);
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    expectBalanced(markdown);
    expect(markdown).toContain('#### Not assessed');
    expect(markdown).toMatch(/- … and \d+ more producers not assessed\n/);
    expect(markdown).toContain('<details><summary>3000 render errors at head also failed at base');
    expect(markdown).toMatch(/- … and \d+ more causes\n/);
    const run = renderCheckRun(result, 'danger');
    expect(run.summary.length).toBeLessThanOrEqual(CHECK_RUN_MAX_CHARS);
    expect(run.text.length).toBeLessThanOrEqual(CHECK_RUN_MAX_CHARS);
    expectBalanced(run.summary);
  });

  it.each([2_000, 5_000, 12_000])('fit a %i character budget', (maxChars) => {
    const markdown = renderMarkdown(everythingFails(), { maxChars });
    expect(markdown.length).toBeLessThanOrEqual(maxChars);
    expectBalanced(markdown);
  });
});
