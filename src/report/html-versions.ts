/**
 * The HTML report's version tables: every chart and image that moves, once each over all
 * clusters, with the releases that install each chart. Static HTML, every value escaped.
 */
import { type AnalysisResult, plural } from '../model/index.js';
import { escapeHtml } from './html-escape.js';
import { RELEASES_SHOWN, chartMoves, imageMoves } from './version-changes.js';

function version(value: string | undefined, missing: string): string {
  return value === undefined
    ? `<span class="muted">${missing}</span>`
    : `<code>${escapeHtml(value)}</code>`;
}

/** Short lists inline; a long one folded behind its count. */
function releases(producers: readonly string[]): string {
  const names = producers.map((p) => `<code>${escapeHtml(p)}</code>`);
  if (names.length <= RELEASES_SHOWN) return names.join(', ');
  const items = names.map((n) => `<li>${n}</li>`).join('');
  return `<details><summary>${escapeHtml(plural(names.length, 'release'))}</summary><ul>${items}</ul></details>`;
}

function table(caption: string, head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const body = rows.map((cells) => `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`);
  return [
    '<table class="versions">',
    `<caption>${escapeHtml(caption)}</caption>`,
    `<thead><tr>${th}</tr></thead>`,
    `<tbody>\n${body.join('\n')}\n</tbody>`,
    '</table>',
  ].join('\n');
}

export function versionsSection(result: AnalysisResult): string {
  const charts = chartMoves(result).map((c) => [
    `<code>${escapeHtml(c.chart)}</code>`,
    c.fromSource === undefined
      ? `<code>${escapeHtml(c.source)}</code>`
      : `<code>${escapeHtml(c.fromSource)}</code> → <code>${escapeHtml(c.source)}</code>`,
    version(c.from, 'new'),
    version(c.to, 'removed'),
    releases(c.producers),
  ]);
  const images = imageMoves(result).map((i) => [
    `<code>${escapeHtml(i.repository)}</code>`,
    version(i.from, 'new'),
    version(i.to, 'removed'),
  ]);
  if (charts.length === 0 && images.length === 0) return '';
  return [
    '<section aria-labelledby="versions-title">',
    '<h2 id="versions-title">Version changes</h2>',
    charts.length === 0
      ? ''
      : table(`Charts (${charts.length})`, ['Chart', 'Source', 'From', 'To', 'Releases'], charts),
    images.length === 0
      ? ''
      : table(`Images (${images.length})`, ['Repository', 'From', 'To'], images),
    '</section>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}
