/**
 * The verdict lines every report shares: a routine change said to be routine once, and
 * render errors that fail on both sides counted in the terminal report as in the comment.
 */
import { describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../../src/model/analysis.js';
import { renderHtml } from '../../../src/report/html.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { renderText } from '../../../src/report/text.js';
import { analysis, change, helmRelease } from './analysis-builders.js';

const ROUTINE_HEADLINE =
  'Routine: only image tags, digests and chart versions change (1 object), with 1 info finding';

function routine(headline: string): AnalysisResult {
  const base = analysis({ changes: [change({ name: 'web' })] });
  return { ...base, verdict: { ...base.verdict, headline, routine: true } };
}

/** The words of the page's header, without markup (its class names say "routine" too). */
function headerText(html: string): string {
  const header = /<header[^>]*>([\s\S]*?)<\/header>/.exec(html)?.[1] ?? '';
  return header.replace(/<[^>]*>/g, ' ');
}

const occurrences = (text: string, word: RegExp) => (text.match(word) ?? []).length;

const reports: Array<[string, (r: AnalysisResult) => string]> = [
  ['markdown', (r) => renderMarkdown(r)],
  ['text', (r) => renderText(r, { color: false })],
  ['html', (r) => headerText(renderHtml(r))],
];

describe('the routine mark', () => {
  it.each(reports)('%s says routine once when the headline already does', (_name, render) => {
    expect(occurrences(render(routine(ROUTINE_HEADLINE)), /routine/gi)).toBe(1);
  });

  it.each(reports)('%s marks a routine verdict whose headline does not say so', (_name, render) => {
    expect(occurrences(render(routine('Bumps the web image')), /routine/gi)).toBe(1);
  });
});

describe('render errors that fail at base and head', () => {
  const failing = analysis({
    errors: (['base', 'head'] as const).map((side) => ({
      producer: helmRelease('web'),
      message: 'chart unavailable',
      cluster: 'default',
      side,
      introduced: false,
    })),
  });

  it('are counted in the text report as in the Markdown comment, which lists them folded', () => {
    const sentence = '1 render error at head also failed at base';
    expect(renderMarkdown(failing)).toContain(
      `<details><summary>${sentence}</summary>\n\n- \`HelmRelease/apps/web\`: chart unavailable\n`,
    );
    expect(renderText(failing, { color: false })).toContain(
      `${sentence}:\n  HelmRelease/apps/web: chart unavailable\n`,
    );
  });
});
