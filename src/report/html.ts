/**
 * The HTML report: one self-contained page (inline style and script, no network) with the
 * verdict, the findings, and a tree of clusters, producers and objects whose diffs can be
 * read unified or side by side. Names, messages and diffs are untrusted: the static part is
 * escaped here, the dynamic part is built by the page script with textContent only.
 */
import { createHash } from 'node:crypto';
import {
  type AnalysisError,
  type AnalysisResult,
  type Finding,
  type LevelOrNone,
  levelRank,
  plural,
} from '../model/index.js';
import { displaySafe } from './display-text.js';
import { escapeHtml, scriptJson } from './html-escape.js';
import { findingTargets, pageData } from './html-page-data.js';
import { HTML_SCRIPT } from './html-script.js';
import { HTML_STYLE } from './html-style.js';
import { versionsSection } from './html-versions.js';
import { marksRoutine, producerLabel, resourceLabel } from './resource-label.js';
import { unassessedRows, unassessedSide } from './unassessed-groups.js';

function cspHash(source: string): string {
  return `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;
}

// Only this page's own style and script may run: an injected inline script or style would
// not match the hashes, and nothing may be fetched.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src ${cspHash(HTML_SCRIPT)}`,
  `style-src ${cspHash(HTML_STYLE)}`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const LEVEL_TITLES: Record<LevelOrNone, string> = {
  none: 'No risk found',
  info: 'Info',
  caution: 'Caution',
  danger: 'Danger',
};

function header(result: AnalysisResult): string {
  const { verdict, summary } = result;
  const rev = (label: string, ref: { rev: string; sha: string }): string =>
    `${label} <code>${escapeHtml(ref.rev)}</code> <code>${escapeHtml(ref.sha.slice(0, 12))}</code>`;
  const counts = [
    `${summary.added} added`,
    `${summary.changed} changed`,
    `${summary.removed} removed`,
    `${summary.moved} moved`,
    plural(summary.findings, 'finding'),
  ].map(escapeHtml);
  const level = escapeHtml(verdict.level);
  return [
    `<header class="verdict-${level}">`,
    '<p class="brand">fluxlens</p>',
    `<h1><span class="level level-${level}">${escapeHtml(LEVEL_TITLES[verdict.level] ?? level)}</span> ${escapeHtml(verdict.headline)}</h1>`,
    `<p class="revs">${rev('base', result.base)} &#8594; ${rev('head', result.head)}</p>`,
    `<ul class="summary">${counts.map((c) => `<li>${c}</li>`).join('')}</ul>`,
    marksRoutine(verdict)
      ? '<p class="routine">Routine: only image tags, digests and chart versions changed.</p>'
      : '',
    '</header>',
  ].join('\n');
}

function finding(f: Finding, target: number): string {
  const where: string[] = [`cluster ${escapeHtml(f.cluster)}`];
  if (f.producer) where.push(`from ${escapeHtml(producerLabel(f.producer))}`);
  if (f.file !== undefined) {
    const line = f.line === undefined ? '' : `:${escapeHtml(String(f.line))}`;
    where.push(`<code>${escapeHtml(f.file)}${line}</code>`);
  }
  const level = escapeHtml(f.level);
  const show =
    target >= 0
      ? `<button type="button" class="show" data-object="${target}">Show diff</button>`
      : '';
  return [
    `<li class="finding finding-${level}">`,
    `<span class="level level-${level}">${level}</span> `,
    `<code class="rule">${escapeHtml(f.rule)}</code> `,
    `<strong>${escapeHtml(resourceLabel(f.resource))}</strong>`,
    `<p class="message">${escapeHtml(f.message)}</p>`,
    `<p class="where">${where.join(' &#183; ')}</p>`,
    show,
    '</li>',
  ].join('');
}

/** First in the page: what nothing looked at comes before what was found. */
function unassessed(result: AnalysisResult): string {
  const rows = unassessedRows(result);
  if (rows.length === 0) return '';
  const items = rows.map(
    (u) =>
      `<li><strong>${escapeHtml(producerLabel(u.producer))}</strong> in cluster ${escapeHtml(u.cluster)}: ` +
      `could not be rendered ${escapeHtml(unassessedSide(u.side))} (${escapeHtml(u.reason)}); ` +
      'its changes were not assessed</li>',
  );
  return [
    '<section aria-labelledby="unassessed-title">',
    `<h2 id="unassessed-title">Not assessed (${rows.length})</h2>`,
    `<ul class="errors">\n${items.join('\n')}\n</ul>`,
    '</section>',
  ].join('\n');
}

function findings(result: AnalysisResult): string {
  const targets = findingTargets(result.changes, result.findings);
  // Danger first even if a caller did not sort; the sort is stable, so ties keep their order.
  const ordered = result.findings
    .map((f, i) => ({ f, target: targets[i] ?? -1 }))
    .sort((a, b) => levelRank(b.f.level) - levelRank(a.f.level));
  const body =
    ordered.length === 0
      ? '<p class="placeholder">No findings.</p>'
      : `<ol class="findings">\n${ordered.map((o) => finding(o.f, o.target)).join('\n')}\n</ol>`;
  return [
    '<section aria-labelledby="findings-title">',
    `<h2 id="findings-title">Findings (${ordered.length})</h2>`,
    body,
    '</section>',
  ].join('\n');
}

/** One render error, however many sides it failed on. */
interface ErrorRow {
  error: AnalysisError;
  sides: Set<AnalysisError['side']>;
  introduced: boolean;
}

/** `at base and head`, `introduced at head`, `at head`, `at base`. */
function errorState(row: ErrorRow): string {
  if (row.sides.size === 2) return 'at base and head';
  if (row.sides.has('head')) return row.introduced ? 'introduced at head' : 'at head';
  return 'at base';
}

/**
 * Each render error once: a producer that fails the same way at base and head is one
 * entry "at base and head", not one per side. Introduced errors first, then the rest in
 * the result's order.
 */
function errorRows(errors: readonly AnalysisError[]): ErrorRow[] {
  const rows = new Map<string, ErrorRow>();
  for (const error of errors) {
    const key = JSON.stringify([
      error.cluster,
      producerLabel(error.producer),
      error.file ?? '',
      error.message,
    ]);
    const row = rows.get(key) ?? { error, sides: new Set(), introduced: false };
    row.sides.add(error.side);
    row.introduced ||= error.introduced;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => Number(b.introduced) - Number(a.introduced));
}

function renderError(row: ErrorRow): string {
  const e = row.error;
  const file = e.file === undefined ? '' : ` <code>${escapeHtml(e.file)}</code>`;
  return [
    '<li>',
    `<strong>${escapeHtml(producerLabel(e.producer))}</strong> in cluster ${escapeHtml(e.cluster)}, ${escapeHtml(errorState(row))}${file}`,
    `<p class="mono">${escapeHtml(e.message)}</p>`,
    '</li>',
  ].join('');
}

/** After the changes: what failed to render matters less than what the PR changes. */
function errors(result: AnalysisResult): string {
  const rows = errorRows(result.errors);
  if (rows.length === 0) return '';
  return [
    '<section aria-labelledby="errors-title">',
    `<h2 id="errors-title">Render errors (${rows.length})</h2>`,
    `<ul class="errors">\n${rows.map(renderError).join('\n')}\n</ul>`,
    '</section>',
  ].join('\n');
}

function changes(): string {
  return [
    '<section aria-labelledby="changes-title">',
    '<h2 id="changes-title">Changes</h2>',
    '<div class="panes">',
    '<nav id="tree" class="tree" aria-label="Clusters, producers and objects">',
    '<p class="placeholder">The tree of changes needs JavaScript.</p>',
    '</nav>',
    '<section id="detail" class="detail" aria-live="polite" aria-label="Selected object">',
    '<p class="placeholder">Select an object to see its diff.</p>',
    '</section>',
    '</div>',
    '</section>',
  ].join('\n');
}

function footer(result: AnalysisResult): string {
  const timings = Object.keys(result.timings)
    .sort()
    .map(
      (step) =>
        `<dt>${escapeHtml(step)}</dt><dd>${escapeHtml(String(result.timings[step]))} ms</dd>`,
    )
    .join('');
  const report =
    result.reportUrl === undefined
      ? ''
      : ` &#183; full report: <code>${escapeHtml(result.reportUrl)}</code>`;
  return [
    '<footer>',
    `<p>fluxlens report, schema version ${escapeHtml(String(result.schemaVersion))}${report}</p>`,
    timings === '' ? '' : `<dl aria-label="Timings">${timings}</dl>`,
    '</footer>',
  ].join('\n');
}

/**
 * The whole report as one HTML document. Deterministic: the same result gives the same
 * bytes (no clock, no random ids; the embedded data has sorted keys).
 */
export function renderHtml(raw: AnalysisResult): string {
  const result = displaySafe(raw);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>fluxlens: ${escapeHtml(result.verdict.headline)}</title>`,
    `<style>${HTML_STYLE}</style>`,
    '</head>',
    '<body>',
    header(result),
    '<main>',
    unassessed(result),
    findings(result),
    versionsSection(result),
    changes(),
    errors(result),
    '</main>',
    footer(result),
    `<script type="application/json" id="fluxlens-data">${scriptJson(pageData(result))}</script>`,
    `<script>${HTML_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
