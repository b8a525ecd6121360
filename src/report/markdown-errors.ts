/**
 * Render errors in the PR comment: one line per error, and the errors a PR neither broke
 * nor fixed (its producer failed at base too), folded away, those of producers the PR
 * changes first: they hide part of what the PR does, the others only what it leaves alone.
 */
import {
  type AnalysisError,
  type AnalysisResult,
  type RenderError,
  plural,
  producerKey,
} from '../model/index.js';
import { codeName, markdownLine } from './escape-markdown.js';
import { producerLabel } from './resource-label.js';

const MAX_ERROR_MESSAGE = 1000;
const DETAILS_CLOSE = '</details>\n\n';

/** `- \`Kustomization/flux-system/apps\` (\`file\`) in cluster \`prod\`: message`. */
export function errorLine(error: RenderError, cluster: string | undefined): string {
  const file = error.file ? ` (${codeName(error.file)})` : '';
  const where = cluster === undefined ? '' : ` in cluster ${codeName(cluster)}`;
  const message = markdownLine(error.message, MAX_ERROR_MESSAGE);
  return `- ${codeName(producerLabel(error.producer))}${file}${where}: ${message}\n`;
}

function errorKey(e: AnalysisError): string {
  return `${e.cluster}\n${producerKey(e.producer)}`;
}

/**
 * Head errors of producers that failed at base too: the PR neither broke nor fixed them.
 * Those of producers the PR changes (clusters[].producers, or not assessed) come first.
 */
export function persistingErrorList(result: AnalysisResult): AnalysisError[] {
  const atBase = new Set(result.errors.filter((e) => e.side === 'base').map(errorKey));
  const touched = new Set(
    result.clusters.flatMap((c) => [
      ...c.producers.map((p) => `${c.name}\n${p}`),
      ...(c.unassessed ?? []).map((u) => `${c.name}\n${producerKey(u.producer)}`),
    ]),
  );
  const persisting = result.errors.filter(
    (e) => e.side === 'head' && !e.introduced && atBase.has(errorKey(e)),
  );
  const rank = (e: AnalysisError) => (touched.has(errorKey(e)) ? 0 : 1);
  return persisting.sort((a, b) => rank(a) - rank(b));
}

export function persistingErrors(result: AnalysisResult): number {
  return persistingErrorList(result).length;
}

/**
 * The persisting errors in a closed `<details>`, as many as fit in `budget`, then how many
 * were left out; just their count when not even that fits; nothing when there are none.
 */
export function persistingSection(result: AnalysisResult, budget: number): string {
  const errors = persistingErrorList(result);
  if (errors.length === 0) return '';
  const summary = `${plural(errors.length, 'render error')} at head also failed at base`;
  const open = `<details><summary>${summary}</summary>\n\n`;
  const multiCluster = result.clusters.length > 1;
  const rows = errors.map((e) => errorLine(e, multiCluster ? e.cluster : undefined));
  const more = (n: number) => `- … and ${plural(n, 'more error')}\n`;
  const reserve = open.length + more(rows.length).length + 1 + DETAILS_CLOSE.length;
  if (reserve > budget) {
    const line = `${summary}.\n\n`;
    return line.length <= budget ? line : '';
  }
  let body = '';
  let shown = 0;
  for (const row of rows) {
    const last = shown === rows.length - 1;
    const after = last ? 1 + DETAILS_CLOSE.length : reserve - open.length;
    if (open.length + body.length + row.length + after > budget) break;
    body += row;
    shown += 1;
  }
  const tail = shown < rows.length ? more(rows.length - shown) : '';
  return `${open}${body}${tail}\n${DETAILS_CLOSE}`;
}
