/**
 * The sticky PR comment: verdict, findings, what was not assessed, counts, images, charts,
 * the render errors the PR introduces or fixes, then the object diffs riskiest first (the
 * same change in many objects once), and last, folded, the render errors the PR neither
 * broke nor fixed; always within GitHub's comment size limit.
 */
import type { AnalysisResult } from '../model/index.js';
import { acknowledgementSection } from './acknowledgement.js';
import { clipText, oneLine } from './clip-text.js';
import { displaySafe, displayText } from './display-text.js';
import { escapeMarkdown } from './escape-markdown.js';
import { groupChanges } from './group-changes.js';
import { omissionFooter, renderMarkdownChanges, worstOmission } from './markdown-changes.js';
import { persistingSection } from './markdown-errors.js';
import { renderMarkdownSummary } from './markdown-summary.js';
import { renderMarkdownUnrendered } from './markdown-unrendered.js';
import { levelLabel } from './resource-label.js';

/** GitHub's limit on an issue comment body. */
export const MARKDOWN_MAX_CHARS = 65536;

export interface MarkdownOptions {
  /** Characters the comment may take; defaults to GitHub's comment limit. */
  maxChars?: number;
}

/**
 * Budget: the verdict and findings first (danger findings whole, others by count when
 * they alone overflow), then what was not assessed, counts, images, charts and errors with
 * a third of what is left each; the errors that failed at base too get a third of what is
 * left after that, and the diffs the rest, in risk order, with room kept for the footer
 * saying what was left out.
 */
export function renderMarkdown(raw: AnalysisResult, opts: MarkdownOptions = {}): string {
  const result = displaySafe(raw);
  const max = opts.maxChars ?? MARKDOWN_MAX_CHARS;
  const groups = groupChanges(result);
  const reserve = omissionFooter(worstOmission(groups), result.reportUrl).length;
  const unrendered = renderMarkdownUnrendered(result, Math.floor(max / 8));
  const acknowledged = acknowledgementSection(result);
  const summary =
    acknowledged +
    renderMarkdownSummary(result, {
      budget: max - reserve - unrendered.length - acknowledged.length,
      listShare: 1 / 3,
    }) +
    unrendered;
  const persisting = persistingSection(
    result,
    Math.max(0, Math.floor((max - reserve - summary.length) / 3)),
  );
  const changes = renderMarkdownChanges(groups, max - reserve - summary.length - persisting.length);
  const footer = omissionFooter(changes.omitted, result.reportUrl);
  const out = `${(summary + changes.text + persisting + footer).trimEnd()}\n`;
  return out.length <= max ? out : minimalMarkdown(result, max);
}

/**
 * For a budget too small for even the verdict lines: the badge and as much of the
 * headline as fits (escaping grows text at most fivefold, `<` to `&lt;`).
 */
export function minimalMarkdown(result: AnalysisResult, max: number): string {
  const badge = `### fluxlens: **${levelLabel(result.verdict.level)}**`;
  const room = Math.floor((max - badge.length - 4) / 5);
  const headline =
    room > 0 ? escapeMarkdown(clipText(oneLine(displayText(result.verdict.headline)), room)) : '';
  const out = headline === '' ? `${badge}\n` : `${badge} · ${headline}\n`;
  return out.length <= max ? out : clipText(badge, max);
}
