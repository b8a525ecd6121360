/**
 * Render errors in the PR comment: one line per error the PR introduces or fixes, and the
 * errors it neither broke nor fixed (its producer failed at base too) as one line with
 * their count, folded over a list by cause ("60 HelmReleases: charts from ghcr.io
 * unavailable"), those with producers the PR changes first: they hide part of what the PR
 * does, the others only what it leaves alone.
 */
import {
  type AnalysisError,
  type AnalysisResult,
  type RenderError,
  plural,
  producerKey,
} from '../model/index.js';
import {
  type CauseGroup,
  type GroupMember,
  errorCause,
  groupByCause,
  producerCount,
  someMembers,
} from './error-causes.js';
import { codeName, markdownLine } from './escape-markdown.js';
import { producerLabel } from './resource-label.js';

const MAX_ERROR_MESSAGE = 1000;
/**
 * A folded error's message, shorter than an introduced one's: the PR did not cause it, and
 * the HTML report and the JSON keep it whole.
 */
const MAX_SAMPLE_MESSAGE = 300;
const MAX_CAUSE = 300;
const DETAILS_CLOSE = '</details>\n\n';

/** `- \`Kustomization/flux-system/apps\` (\`file\`) in cluster \`prod\`: message`. */
export function errorLine(
  error: RenderError,
  cluster: string | undefined,
  max = MAX_ERROR_MESSAGE,
): string {
  const file = error.file ? ` (${codeName(error.file)})` : '';
  const where = cluster === undefined ? '' : ` in cluster ${codeName(cluster)}`;
  const message = markdownLine(error.message, max);
  return `- ${codeName(producerLabel(error.producer))}${file}${where}: ${message}\n`;
}

function errorKey(e: { cluster: string; producer: AnalysisError['producer'] }): string {
  return `${e.cluster}\n${producerKey(e.producer)}`;
}

/** Producers the PR changes (clusters[].producers, or not assessed), by errorKey. */
function touchedProducers(result: AnalysisResult): Set<string> {
  return new Set(
    result.clusters.flatMap((c) => [
      ...c.producers.map((p) => `${c.name}\n${p}`),
      ...(c.unassessed ?? []).map((u) => errorKey({ cluster: c.name, producer: u.producer })),
    ]),
  );
}

/** Head errors of producers that failed at base too: the PR neither broke nor fixed them. */
export function persistingErrorList(result: AnalysisResult): AnalysisError[] {
  const atBase = new Set(result.errors.filter((e) => e.side === 'base').map(errorKey));
  return result.errors.filter((e) => e.side === 'head' && !e.introduced && atBase.has(errorKey(e)));
}

/** The persisting errors by cause; a group holding a producer the PR changes comes first. */
export function persistingGroups(result: AnalysisResult): Array<CauseGroup<AnalysisError>> {
  const touched = touchedProducers(result);
  const rank = (e: AnalysisError) => (touched.has(errorKey(e)) ? 0 : 1);
  const errors = persistingErrorList(result).sort((a, b) => rank(a) - rank(b));
  return groupByCause(errors, errorCause, rank);
}

/** A producer as a group names it: `HelmRelease/apps/web`, with its cluster when there are several. */
export function memberName(m: GroupMember, multiCluster: boolean): string {
  const where = multiCluster ? ` in ${codeName(m.cluster)}` : '';
  return `${codeName(producerLabel(m.producer))}${where}`;
}

/** `\`a\`, \`b\`, \`c\` and 57 more`. */
export function memberList(members: readonly GroupMember[], multiCluster: boolean): string {
  return someMembers(members, (m) => memberName(m, multiCluster));
}

/**
 * One error alone as its own line; a group as its cause with a few of its producers, and
 * the first one's message under it.
 */
function groupRows(group: CauseGroup<AnalysisError>, multiCluster: boolean): string {
  const [first] = group.members;
  if (!first) return '';
  const cluster = multiCluster ? first.cluster : undefined;
  if (group.members.length === 1) return errorLine(first, cluster, MAX_SAMPLE_MESSAGE);
  const cause = markdownLine(group.cause.label, MAX_CAUSE);
  const head = `- **${producerCount(group.members)}**: ${cause}: ${memberList(group.members, multiCluster)}\n`;
  return `${head}  ${errorLine(first, cluster, MAX_SAMPLE_MESSAGE).replace(/^- /, '- e.g. ')}`;
}

/**
 * `rows` in a closed `<details>` under `summary`, as many as fit in `budget`, then a row
 * saying how many were left out; just the summary as a line when not even that fits;
 * nothing when there are no rows.
 */
function detailsList(
  summary: string,
  rows: readonly string[],
  budget: number,
  more: (n: number) => string,
): string {
  if (rows.length === 0) return '';
  const open = `<details><summary>${summary}</summary>\n\n`;
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

/**
 * The persisting errors: one line with their count, folded over their causes, as many as
 * fit in `budget`; nothing when there are none.
 */
export function persistingSection(result: AnalysisResult, budget: number): string {
  const count = persistingErrorList(result).length;
  if (count === 0) return '';
  const multiCluster = result.clusters.length > 1;
  const rows = persistingGroups(result).map((g) => groupRows(g, multiCluster));
  return detailsList(
    `${plural(count, 'render error')} at head also failed at base`,
    rows,
    budget,
    (n) => `- … and ${plural(n, 'more cause')}\n`,
  );
}
