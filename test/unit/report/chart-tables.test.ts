/**
 * Every report lists chart version moves in their own table beside the image changes:
 * chart, source, from, to and the releases that install it, once over all clusters.
 */
import { describe, expect, it } from 'vitest';
import type { ChartChange } from '../../../src/model/change.js';
import { renderHtml } from '../../../src/report/html.js';
import { renderJson } from '../../../src/report/json.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { parseAnalysisResult } from '../../../src/report/parse-result.js';
import { renderText } from '../../../src/report/text.js';
import { expectValidAnalysis } from '../../support/analysis-schema.js';
import { analysis, clusterSummary } from './analysis-builders.js';

const URL = 'oci://ghcr.io/bjw-s-labs/helm/app-template';
const releases = (count: number) =>
  Array.from({ length: count }, (_, i) => `HelmRelease/app-${i}/app-${i}`);

const appTemplate: ChartChange = {
  chart: 'app-template',
  source: URL,
  from: '3.7.3',
  to: '4.1.0',
  producers: releases(39),
};
const redis: ChartChange = {
  chart: 'redis',
  source: 'https://charts.bitnami.com/bitnami',
  to: '18.0.0',
  producers: ['HelmRelease/data/cache'],
};

const result = analysis({
  clusters: [
    clusterSummary({
      name: 'prod',
      images: [{ repository: 'docker.io/library/nginx', from: '1.25', to: '1.26' }],
      charts: [appTemplate, redis],
    }),
    clusterSummary({
      name: 'staging',
      charts: [{ ...appTemplate, producers: ['HelmRelease/x/y'] }],
    }),
  ],
});

describe('chart changes in the reports', () => {
  it('tables them in the PR comment after the images, with the first releases and a count', () => {
    const markdown = renderMarkdown(result);
    const images = markdown.indexOf('#### Image changes');
    const charts = markdown.indexOf('#### Chart changes');
    expect(images).toBeGreaterThan(0);
    expect(charts).toBeGreaterThan(images);
    expect(markdown).toContain('| Chart | From | To | Releases | Installed by |');
    expect(markdown).toContain(
      `| \`app-template\` (\`${URL}\`) | \`3.7.3\` | \`4.1.0\` | 40 | \`HelmRelease/app-0/app-0\`, `,
    );
    expect(markdown).toContain('`HelmRelease/app-12/app-12` and 35 more |');
    expect(markdown).toContain(
      '| `redis` (`https://charts.bitnami.com/bitnami`) | new | `18.0.0` | 1 | `HelmRelease/data/cache` |',
    );
  });

  it('lists them in the terminal with their releases', () => {
    const text = renderText(result, { color: false });
    expect(text).toContain(
      `Chart changes\n  app-template (${URL})  3.7.3 → 4.1.0\n    40 releases: `,
    );
    expect(text).toContain('  redis (https://charts.bitnami.com/bitnami)  new → 18.0.0\n');
  });

  it('tables charts and images in the HTML page, escaped, long release lists folded', () => {
    const html = renderHtml(
      analysis({
        clusters: [clusterSummary({ charts: [appTemplate, { ...redis, chart: '<b>x</b>' }] })],
      }),
    );
    expect(html).toContain('<h2 id="versions-title">Version changes</h2>');
    expect(html).toContain('<caption>Charts (2)</caption>');
    expect(html).toContain('<summary>39 releases</summary>');
    expect(html).toContain('<code>&lt;b&gt;x&lt;/b&gt;</code>');
    expect(html).not.toContain('<b>x</b>');
  });

  it('keeps them in the JSON, valid against the schema, and reads a result stored without them', () => {
    const json = JSON.parse(renderJson(result)) as { clusters: Array<{ charts: unknown }> };
    expectValidAnalysis(json);
    expect(json.clusters[0]?.charts).toEqual([appTemplate, redis]);
    const older = clusterSummary();
    expect('charts' in older).toBe(false);
    const stored = parseAnalysisResult(JSON.stringify(analysis({ clusters: [older] })));
    expect(renderMarkdown(stored)).not.toContain('Chart changes');
    expect(renderHtml(stored)).not.toContain('versions-title');
  });
});
