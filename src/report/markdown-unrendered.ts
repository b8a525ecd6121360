/**
 * What the PR changes that no rendered object shows, in the PR comment: the clusters whose
 * folder nothing in the repository applies (rendered as `flux bootstrap` applies it), the
 * changed files nothing fluxlens renders reads, and, folded away, those an ignore rule
 * leaves out of the repository's artifact. Bounded: a long list ends with "… and N more".
 */
import {
  type AnalysisResult,
  type ChangedFiles,
  plural,
  type ProducerRef,
} from '../model/index.js';
import { codeName, markdownLine } from './escape-markdown.js';
import { listSection } from './markdown-summary.js';

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
    text += listSection(
      '#### Read by nothing fluxlens renders\n\n',
      rows,
      budget - text.length,
      moreFiles,
    );
    text += fits(unrenderedNote(files.unrendered ?? []), budget - text.length);
  }
  if (files.approximated !== undefined)
    text += `Files read were told approximately: ${markdownLine(files.approximated)}.\n\n`;
  if (files.excluded.length > 0) {
    const summary = `<details><summary>${plural(files.excluded.length, 'changed file')} left out by ignore rules</summary>\n\n`;
    const rows = files.excluded.map(
      (f) => `- ${codeName(f.path)}: ${codeName(f.pattern)} (${markdownLine(f.from)})\n`,
    );
    text += listSection(summary, rows, budget - text.length, moreFiles, DETAILS_CLOSE);
  }
  return fits(text, budget);
}

/** `- … and N more files` */
function moreFiles(n: number): string {
  return `- … and ${plural(n, 'more file')}\n`;
}

function fits(text: string, budget: number): string {
  return text.length <= budget ? text : '';
}

/** Producers that did not render may read those files: the first few, with why. */
function unrenderedNote(unrendered: NonNullable<ChangedFiles['unrendered']>): string {
  if (unrendered.length === 0) return '';
  const shown = unrendered
    .slice(0, UNRENDERED_SHOWN)
    .map((u) => `- ${codeName(producerLabel(u.producer))}: ${markdownLine(clip(u.reason))}\n`);
  const rest = unrendered.length - shown.length;
  const more = rest > 0 ? `- … and ${rest} more\n` : '';
  const they = unrendered.length === 1 ? 'it reads' : 'they read';
  const intro = `${plural(unrendered.length, 'producer')} did not render, so what ${they} is unknown and may include these files:\n\n`;
  return `${intro}${shown.join('')}${more}\n`;
}

const UNRENDERED_SHOWN = 5;
/** Characters of a reason shown; the errors list has the whole message. */
const REASON_CHARS = 200;

function producerLabel(ref: ProducerRef): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

function clip(text: string): string {
  return text.length <= REASON_CHARS ? text : `${text.slice(0, REASON_CHARS - 1)}…`;
}
