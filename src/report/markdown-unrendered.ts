/**
 * What the PR changes that no rendered object shows, in the PR comment: the clusters whose
 * folder nothing in the repository applies (rendered as `flux bootstrap` applies it), the
 * changed files nothing fluxlens renders reads, and, folded away, those an ignore rule
 * leaves out of the repository's artifact. Bounded: a long list ends with "… and N more".
 */
import { type AnalysisResult, plural } from '../model/index.js';
import { codeName, markdownLine } from './escape-markdown.js';

const DETAILS_CLOSE = '</details>\n\n';

export function renderMarkdownUnrendered(result: AnalysisResult, budget: number): string {
  const assumed = result.clusters.filter((c) => c.bootstrapAssumed !== undefined);
  const bootstrap = assumed.map((c) => {
    const sides = c.bootstrapAssumed === 'both' ? '' : ` (at ${c.bootstrapAssumed})`;
    return (
      `Nothing in the repository applies ${codeName(c.path)}${sides}: it is rendered as ` +
      '`flux bootstrap` applies it, by the Kustomization `flux-system/flux-system`.\n\n'
    );
  });
  let text = bootstrap.join('');
  const files = result.files;
  if (files === undefined) return fits(text, budget);
  if (files.unread.length > 0) {
    const rows = files.unread.map((path) => `- ${codeName(path)}\n`);
    text += bounded('#### Read by nothing fluxlens renders\n\n', rows, budget - text.length, '');
  }
  if (files.approximated !== undefined)
    text += `Files read were told approximately: ${markdownLine(files.approximated)}.\n\n`;
  if (files.excluded.length > 0) {
    const summary = `<details><summary>${plural(files.excluded.length, 'changed file')} left out by ignore rules</summary>\n\n`;
    const rows = files.excluded.map(
      (f) => `- ${codeName(f.path)}: ${codeName(f.pattern)} (${markdownLine(f.from)})\n`,
    );
    text += bounded(summary, rows, budget - text.length, DETAILS_CLOSE);
  }
  return fits(text, budget);
}

/** The rows that fit, then a row counting the rest; nothing when not even that fits. */
function bounded(header: string, rows: string[], budget: number, close: string): string {
  const full = `${header}${rows.join('')}\n${close}`;
  if (full.length <= budget) return full;
  const more = (n: number) => `- … and ${plural(n, 'more file')}\n`;
  const reserve = more(rows.length).length + 1 + close.length;
  let text = header;
  let shown = 0;
  for (const row of rows) {
    if (text.length + row.length + reserve > budget) break;
    text += row;
    shown += 1;
  }
  if (text.length + reserve > budget) return '';
  return `${text}${more(rows.length - shown)}\n${close}`;
}

function fits(text: string, budget: number): string {
  return text.length <= budget ? text : '';
}
