import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECK_RUN_MAX_CHARS, renderCheckRun } from '../../../src/report/check-run.js';
import { oneLine } from '../../../src/report/clip-text.js';
import { escapeMarkdown } from '../../../src/report/escape-markdown.js';
import { MARKDOWN_MAX_CHARS, renderMarkdown } from '../../../src/report/markdown.js';
import { renderText } from '../../../src/report/text.js';
import { analysisArb } from './arbitrary-analysis.js';
import { expectBalanced } from './markdown-structure.js';

const large = analysisArb({ maxChanges: 3000, maxDanger: 20, maxOtherFindings: 400 });
const small = analysisArb({ maxChanges: 40, maxDanger: 5, maxOtherFindings: 20 });

// Shrinking an analysis of thousands of changes takes minutes; the failing seed and
// counterexample are reported either way, and the small-input properties still shrink.
const noShrink = { endOnFailure: true } as const;

describe('reports of any analysis', () => {
  it('fit a PR comment, keep fences and <details> balanced, and show the verdict and every danger finding', () => {
    fc.assert(
      fc.property(large, (result) => {
        const markdown = renderMarkdown(result);
        expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
        expectBalanced(markdown);
        expect(markdown).toContain(escapeMarkdown(oneLine(result.verdict.headline)));
        for (const f of result.findings.filter((f) => f.level === 'danger')) {
          expect(markdown).toContain(escapeMarkdown(f.message));
        }
      }),
      { numRuns: 40, ...noShrink },
    );
  });

  it('fit any smaller comment budget with fences and <details> still balanced', () => {
    fc.assert(
      fc.property(large, fc.integer({ min: 1, max: 70_000 }), (result, maxChars) => {
        const markdown = renderMarkdown(result, { maxChars });
        expect(markdown.length).toBeLessThanOrEqual(maxChars);
        expectBalanced(markdown);
      }),
      { numRuns: 60, ...noShrink },
    );
  });

  it('fit the check-run limits with balanced Markdown in summary and text', () => {
    fc.assert(
      fc.property(
        large,
        fc.constantFrom('info', 'caution', 'danger', 'never' as const),
        (result, failOn) => {
          const run = renderCheckRun(result, failOn);
          expect(run.title.length).toBeLessThanOrEqual(CHECK_RUN_MAX_CHARS);
          expect(run.summary.length).toBeLessThanOrEqual(CHECK_RUN_MAX_CHARS);
          expect(run.text.length).toBeLessThanOrEqual(CHECK_RUN_MAX_CHARS);
          expectBalanced(run.summary);
          expectBalanced(run.text);
          expect(run.annotations).toHaveLength(result.findings.filter((f) => f.file).length);
        },
      ),
      { numRuns: 30, ...noShrink },
    );
  });

  it('are byte-identical for the same input and leave the input untouched', () => {
    fc.assert(
      fc.property(small, (result) => {
        const before = structuredClone(result);
        const copy = structuredClone(result);
        expect(renderMarkdown(copy)).toBe(renderMarkdown(result));
        expect(renderCheckRun(copy, 'danger')).toEqual(renderCheckRun(result, 'danger'));
        expect(renderText(copy, { color: true })).toBe(renderText(result, { color: true }));
        expect(renderText(copy, { color: false })).toBe(renderText(result, { color: false }));
        expect(result).toEqual(before);
      }),
      { numRuns: 50 },
    );
  });

  it('print no escape character in the terminal without colour', () => {
    fc.assert(
      fc.property(small, (result) => {
        expect(renderText(result, { color: false })).not.toContain('\u001b');
      }),
      { numRuns: 50 },
    );
  });
});
