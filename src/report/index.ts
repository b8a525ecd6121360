/**
 * report/ turns one AnalysisResult into what people read: the PR comment (Markdown), the
 * check run, JSON, terminal text and an HTML page. Pure and deterministic; it must not
 * render, diff, judge or publish, and it only ever sees redacted data.
 */
export { failingFindingIds } from './acknowledgement.js';
export { renderCheckRun } from './check-run.js';
export { displayText } from './display-text.js';
export { renderHtml } from './html.js';
export { renderJson } from './json.js';
export { MARKDOWN_MAX_CHARS, renderMarkdown } from './markdown.js';
export { renderText } from './text.js';
export { parseAnalysisResult } from './parse-result.js';
export { renderReviewsPage } from './reviews-page.js';
