/**
 * Every report lists the producers that were not assessed, saying so in words: the PR
 * comment and the terminal after the findings (what was found first, then what nothing
 * looked at), the HTML page first; and the check run is not green.
 */
import { describe, expect, it } from 'vitest';
import { renderCheckRun } from '../../../src/report/check-run.js';
import { renderHtml } from '../../../src/report/html.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { renderText } from '../../../src/report/text.js';
import { analysis, clusterSummary, finding, helmRelease } from './analysis-builders.js';

const notAssessed = (findings = [finding({ level: 'caution', message: 'Scales down' })]) => {
  const result = analysis({
    findings,
    clusters: [
      clusterSummary({
        unassessed: [
          { producer: helmRelease('runner'), side: 'head', reason: 'chart unavailable' },
        ],
      }),
    ],
  });
  result.verdict = {
    ...result.verdict,
    level: 'caution',
    headline: 'not assessed: 1 changed HelmRelease could not be rendered: chart unavailable',
    unassessed: 1,
  };
  return result;
};

describe('a result with a producer that was not assessed', () => {
  it.each([
    [
      'Markdown',
      (r: ReturnType<typeof notAssessed>) => renderMarkdown(r),
      '#### Findings',
      '#### Not assessed',
    ],
    [
      'text',
      (r: ReturnType<typeof notAssessed>) => renderText(r, { color: false }),
      'Findings',
      'Not assessed',
    ],
    [
      'HTML',
      (r: ReturnType<typeof notAssessed>) => renderHtml(r),
      'Not assessed (1)',
      'Findings (',
    ],
  ])('lists it in %s, %s before %s', (_format, render, first, then) => {
    const text = render(notAssessed());
    expect(text).toContain('HelmRelease/apps/runner');
    expect(text).toMatch(/its changes were not assessed/);
    expect(text.indexOf(first)).toBeGreaterThan(-1);
    expect(text.indexOf(first)).toBeLessThan(text.indexOf(then));
  });

  it('is neutral, not success, even with no finding above info', () => {
    expect(renderCheckRun(notAssessed([]), 'danger').conclusion).toBe('neutral');
  });

  it('still fails when a finding reaches failOn', () => {
    const result = notAssessed([finding({ level: 'danger', message: 'Deletes data' })]);
    expect(renderCheckRun(result, 'danger').conclusion).toBe('failure');
  });
});
