/**
 * The reviews page: the latest stored review of recent pull requests across repositories,
 * one row each (repository, PR, verdict, finding and change counts, head, when, and a link
 * to its report), with a filter form by repository and verdict level. Plain HTML with an
 * inline stylesheet and no script; every string from a result is escaped. A result that
 * cannot be read is still listed, as such.
 */
import type { AnalysisResult, LevelOrNone } from '../model/index.js';
import { escapeHtml } from './html-escape.js';
import { parseAnalysisResult } from './parse-result.js';

export interface ReviewsPage {
  reviews: ReadonlyArray<{
    pull: { owner: string; repo: string; pullNumber: number };
    headSha: string;
    storedAt: number;
    resultJson: string;
    reportUrl: string;
  }>;
  repository?: string;
  verdict?: LevelOrNone;
  /** Query parameters the page's links and form keep (a signed link's expires and sig). */
  carry: Readonly<Record<string, string>>;
  /** A signed link to the page to pass on. */
  shareUrl?: string;
}

const LEVELS: readonly LevelOrNone[] = ['none', 'info', 'caution', 'danger'];

const STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e;
  --border: #d1d9e0; --danger: #cf222e; --caution: #9a6700; --info: #0969da; --none: #1a7f37; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1;
  --border: #3d444d; --danger: #f85149; --caution: #d29922; --info: #4493f8; --none: #3fb950; } }
body { margin: 0; padding: 12px 24px; background: var(--bg); color: var(--fg);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 20px; margin: 4px 0; }
.lead, .empty, .share { color: var(--muted); overflow-wrap: anywhere; }
form { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; margin: 12px 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--border); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.level { display: inline-block; border-radius: 999px; padding: 0 8px; font-size: 12px;
  font-weight: 600; line-height: 20px; border: 1px solid currentColor; white-space: nowrap; }
.level-none { color: var(--none); } .level-info { color: var(--info); }
.level-caution { color: var(--caution); } .level-danger { color: var(--danger); }
.level-unreadable { color: var(--muted); }
.headline { display: block; overflow-wrap: anywhere; }
`;

type Row = ReviewsPage['reviews'][number] & { result: AnalysisResult | undefined };

function read(json: string): AnalysisResult | undefined {
  try {
    return parseAnalysisResult(json);
  } catch {
    return undefined;
  }
}

function query(params: Readonly<Record<string, string>>): string {
  const text = new URLSearchParams(params).toString();
  return text === '' ? '' : `?${text}`;
}

/** `2026-05-01 14:03 UTC`: the same on every machine, whatever its time zone. */
function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function row(review: Row, carry: ReviewsPage['carry']): string {
  const { pull, result } = review;
  const repository = `${pull.owner}/${pull.repo}`;
  const repoLink = `/reports${query({ repository, ...carry })}`;
  const cells = [
    `<td><a class="repository" href="${escapeHtml(repoLink)}">${escapeHtml(repository)}</a></td>`,
    `<td>#${pull.pullNumber}</td>`,
  ];
  if (result) {
    const { level, headline, counts } = result.verdict;
    const { added, changed, removed, moved } = result.summary;
    cells.push(
      `<td><span class="level level-${level}">${level}</span><span class="headline">${escapeHtml(headline)}</span></td>`,
      `<td class="findings">${counts.danger} danger, ${counts.caution} caution, ${counts.info} info</td>`,
      `<td class="changes">${added} added, ${changed} changed, ${removed} removed, ${moved} moved</td>`,
    );
  } else {
    cells.push(
      '<td><span class="level level-unreadable">unreadable</span><span class="headline">The stored result could not be read</span></td>',
      '<td></td>',
      '<td></td>',
    );
  }
  cells.push(
    `<td class="mono head" title="${escapeHtml(review.headSha)}">${escapeHtml(review.headSha.slice(0, 12))}</td>`,
    `<td class="reviewed">${when(review.storedAt)}</td>`,
    `<td><a class="report" href="${escapeHtml(review.reportUrl)}">report</a></td>`,
  );
  return `<tr>${cells.join('')}</tr>`;
}

function form(page: ReviewsPage): string {
  const options = ['', ...LEVELS].map((level) => {
    const selected = (page.verdict ?? '') === level ? ' selected' : '';
    return `<option value="${level}"${selected}>${level === '' ? 'any' : level}</option>`;
  });
  const hidden = Object.entries(page.carry).map(
    ([name, value]) =>
      `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
  );
  return [
    '<form method="get" action="/reports">',
    `<label>Repository <input name="repository" placeholder="owner/repo" value="${escapeHtml(page.repository ?? '')}"></label>`,
    `<label>Verdict <select name="verdict">${options.join('')}</select></label>`,
    ...hidden,
    '<button type="submit">Filter</button>',
    '</form>',
  ].join('\n');
}

function lead(page: ReviewsPage, shown: number): string {
  const scope = page.repository ? ` in ${escapeHtml(page.repository)}` : '';
  const level = page.verdict ? `, verdict ${page.verdict}` : '';
  return `<p class="lead">${shown} of the ${page.reviews.length} most recently reviewed pull requests${scope}${level}, newest first.</p>`;
}

export function renderReviewsPage(page: ReviewsPage): string {
  const rows: Row[] = page.reviews
    .map((review) => ({ ...review, result: read(review.resultJson) }))
    .filter((review) => !page.verdict || review.result?.verdict.level === page.verdict);
  const table =
    rows.length === 0
      ? '<p class="empty">No reviews match.</p>'
      : [
          '<table>',
          '<thead><tr><th>Repository</th><th>Pull request</th><th>Verdict</th><th>Findings</th><th>Changes</th><th>Head</th><th>Reviewed</th><th>Report</th></tr></thead>',
          `<tbody>${rows.map((r) => row(r, page.carry)).join('\n')}</tbody>`,
          '</table>',
        ].join('\n');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>fluxlens: reviews</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<h1>Reviews</h1>',
    lead(page, rows.length),
    ...(page.shareUrl
      ? [
          `<p class="share">A link to this page for anyone without the API token, valid for a day: <a href="${escapeHtml(page.shareUrl)}">${escapeHtml(page.shareUrl)}</a></p>`,
        ]
      : []),
    form(page),
    table,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
