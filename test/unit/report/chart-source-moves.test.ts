/**
 * A chart the PR points at another registry reads as one row in every report, naming the
 * source it leaves and the one it comes from.
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

const GHCR = 'oci://ghcr.io/foo/charts/app';
const MIRROR = 'oci://mirror.example/foo/charts/app';

const moved: ChartChange = {
  chart: 'app',
  source: MIRROR,
  fromSource: GHCR,
  from: '1.2.3',
  to: '1.2.3',
  producers: ['HelmRelease/web/web'],
};

const result = analysis({
  clusters: [
    clusterSummary({ name: 'prod', charts: [moved] }),
    clusterSummary({ name: 'staging', charts: [{ ...moved, producers: ['HelmRelease/x/y'] }] }),
  ],
});

describe('a chart moved to another source in the reports', () => {
  it('is one row of the PR comment naming both sources', () => {
    const markdown = renderMarkdown(result);
    expect(markdown).toContain(
      `| \`app\` (source: \`${GHCR}\` → \`${MIRROR}\`) | \`1.2.3\` | \`1.2.3\` | 2 | \`HelmRelease/web/web\`, \`HelmRelease/x/y\` |`,
    );
    expect(markdown).not.toContain('| removed |');
    expect(markdown).not.toContain('| new |');
  });

  it('is one line in the terminal naming both sources', () => {
    const text = renderText(result, { color: false });
    expect(text).toContain(`Chart changes\n  app (source: ${GHCR} → ${MIRROR})  1.2.3 → 1.2.3\n`);
    expect(text).not.toMatch(/new →|→ removed/);
  });

  it('shows both sources in the source column of the HTML page, escaped', () => {
    const html = renderHtml(
      analysis({ clusters: [clusterSummary({ charts: [{ ...moved, fromSource: '<b>x</b>' }] })] }),
    );
    expect(html).toContain('<caption>Charts (1)</caption>');
    expect(html).toContain(`<code>&lt;b&gt;x&lt;/b&gt;</code> → <code>${MIRROR}</code>`);
    expect(html).not.toContain('<b>x</b>');
  });

  it('keeps fromSource in the JSON, valid against the schema and read back whole', () => {
    const json = renderJson(result);
    expectValidAnalysis(JSON.parse(json));
    expect(parseAnalysisResult(json).clusters[0]?.charts).toEqual([moved]);
  });
});
