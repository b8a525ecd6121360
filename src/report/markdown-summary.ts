/**
 * The top of the PR comment and the check-run summary: verdict, counts, findings, the
 * producers the PR changes that could not be assessed (by cause), then the clusters, image
 * and chart changes and the render errors the PR introduces or fixes, within a character
 * budget. The verdict, findings and what was not assessed come first; the lists after them
 * get a share of what is left and end with "… and N more". The errors the PR neither broke
 * nor fixed are not here: the comment folds them after its diffs (markdown-errors.ts).
 */
import {
  type AnalysisResult,
  type Finding,
  type Level,
  type RenderError,
  levelRank,
  plural,
} from '../model/index.js';
import { clipText } from './clip-text.js';
import { codeName, markdownLine, tableCode } from './escape-markdown.js';
import { producerCount } from './error-causes.js';
import { errorLine, memberList, memberName } from './markdown-errors.js';
import { unassessedGroups, unassessedSide } from './unassessed-groups.js';
import { changesByResource, findingResourceKey } from './group-changes.js';
import {
  levelLabel,
  marksRoutine,
  producerLabel,
  resourceLabel,
  sourceLocation,
} from './resource-label.js';
import { RELEASES_SHOWN, chartMoves, imageMoves } from './version-changes.js';

/** Bounds on single values, so one oversized string cannot crowd out the rest. */
const MAX_HEADLINE = 1000;
const MAX_CELL = 500;
const MAX_CAUSE = 300;

export interface MarkdownSummaryOptions {
  /** Characters the summary may take; only the verdict lines are kept whatever it is. */
  budget: number;
  /** Fraction of the remaining budget each list after the findings may take. */
  listShare: number;
}

/** The verdict line: always first, always whole. */
export function markdownVerdict(result: AnalysisResult): string {
  const { verdict } = result;
  const headline =
    verdict.headline.trim() === '' ? '' : ` · ${markdownLine(verdict.headline, MAX_HEADLINE)}`;
  const routine = marksRoutine(verdict) ? ' · routine' : '';
  return `### fluxlens: **${levelLabel(verdict.level)}**${headline}${routine}\n\n`;
}

function countsLine(result: AnalysisResult): string {
  const { base, head, summary } = result;
  const rev = (r: { rev: string; sha: string }) =>
    `${codeName(r.rev)} (${codeName(r.sha.slice(0, 12))})`;
  const levels = (['danger', 'caution', 'info'] as const)
    .map((level) => [level, result.findings.filter((f) => f.level === level).length] as const)
    .filter(([, n]) => n > 0)
    .map(([level, n]) => `${n} ${level}`);
  const n = result.findings.length;
  const detail = levels.length ? ` (${levels.join(', ')})` : '';
  const findings = `**${n}** ${n === 1 ? 'finding' : 'findings'}${detail}`;
  return (
    `${rev(base)} → ${rev(head)} · **${summary.added}** added · **${summary.removed}** removed · ` +
    `**${summary.changed}** changed · **${summary.moved}** moved · ${findings}\n\n`
  );
}

/**
 * After the findings, grouped by cause, and said in words: the findings speak for what was
 * rendered, this for what was not, so an empty findings list never reads as "nothing risky".
 */
function unassessedSection(result: AnalysisResult, budget: number): string {
  const groups = unassessedGroups(result);
  if (groups.length === 0) return '';
  const multiCluster = result.clusters.length > 1;
  const count = groups.reduce((n, g) => n + g.members.length, 0);
  // One producer's own line says it all; many need saying before their causes.
  const intro =
    count === 1
      ? ''
      : `**${count}** producers the PR changes could not be rendered, so their changes were not assessed:\n\n`;
  const lines = groups.map(({ cause, members }) => {
    const [first] = members;
    if (members.length === 1 && first) {
      return (
        `- ${memberName(first, multiCluster)}: could not be rendered ${unassessedSide(first.side)} ` +
        `(${markdownLine(cause.label, MAX_CAUSE)}); its changes were not assessed\n`
      );
    }
    const side = unassessedSide(first?.side ?? 'both');
    return (
      `- **${producerCount(members)}** could not be rendered ${side} ` +
      `(${markdownLine(cause.label, MAX_CAUSE)}): ${memberList(members, multiCluster)}\n`
    );
  });
  return listSection(`#### Not assessed\n\n${intro}`, lines, budget, (n) => {
    const producers = groups.slice(-n).reduce((sum, g) => sum + g.members.length, 0);
    return `- … and ${plural(producers, 'more producer')} not assessed\n`;
  });
}

interface FindingLine {
  level: Level;
  text: string;
}

function findingLines(result: AnalysisResult): FindingLine[] {
  const byResource = changesByResource(result.changes);
  const multiCluster = new Set(result.clusters.map((c) => c.name)).size > 1;
  const ordered = [...result.findings].sort((a, b) => levelRank(b.level) - levelRank(a.level));
  return ordered.map((finding: Finding) => {
    const change = byResource.get(findingResourceKey(finding));
    const producer = finding.producer ?? change?.producer;
    const location = sourceLocation(finding.file ?? change?.file, finding.line);
    const parts = [
      `- **${levelLabel(finding.level)}** ${codeName(resourceLabel(finding.resource))}`,
    ];
    if (multiCluster) parts.push(`in cluster ${codeName(finding.cluster)}`);
    if (producer) parts.push(`from ${codeName(producerLabel(producer))}`);
    if (location) parts.push(`at ${codeName(location)}`);
    const text = `${parts.join(' ')}: ${markdownLine(finding.message)} (${codeName(finding.rule)})`;
    return { level: finding.level, text };
  });
}

function omittedFindingsLine(omitted: Record<Level, number>): string {
  const parts = (['danger', 'caution', 'info'] as const)
    .filter((level) => omitted[level] > 0)
    .map((level) => `${omitted[level]} ${level}`);
  const total = omitted.danger + omitted.caution + omitted.info;
  return `- … and ${parts.join(', ')} ${total === 1 ? 'finding' : 'findings'} not shown\n`;
}

/**
 * All findings when they fit; otherwise the danger findings whole, in order, as long as
 * they fit, and every other finding summarised by count.
 */
function findingsSection(lines: FindingLine[], budget: number): string {
  if (lines.length === 0) return '';
  const header = '#### Findings\n\n';
  const all = header + lines.map((l) => `${l.text}\n`).join('') + '\n';
  if (all.length <= budget) return all;
  const worst = omittedFindingsLine({
    danger: lines.length,
    caution: lines.length,
    info: lines.length,
  });
  let text = header;
  let full = false;
  const omitted: Record<Level, number> = { danger: 0, caution: 0, info: 0 };
  for (const line of lines) {
    if (
      !full &&
      line.level === 'danger' &&
      text.length + line.text.length + 1 + worst.length + 1 <= budget
    ) {
      text += `${line.text}\n`;
    } else {
      full = true;
      omitted[line.level] += 1;
    }
  }
  return `${text}${omittedFindingsLine(omitted)}\n`;
}

/**
 * As many rows as fit in `budget`, then a row saying how many were left out, then `close`
 * (what ends a folded list); nothing when not even that fits.
 */
export function listSection(
  header: string,
  rows: string[],
  budget: number,
  more: (n: number) => string,
  close = '',
): string {
  if (rows.length === 0) return '';
  const full = `${header}${rows.join('')}\n${close}`;
  if (full.length <= budget) return full;
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

function clusterRows(result: AnalysisResult): string[] {
  if (result.clusters.length < 2) return [];
  return result.clusters.map((c) => {
    const findings = result.findings.filter((f) => f.cluster === c.name).length;
    return `| ${tableCode(c.name)} | ${c.added} | ${c.removed} | ${c.changed} | ${c.moved} | ${findings} |\n`;
  });
}

function imageRows(result: AnalysisResult): string[] {
  return imageMoves(result).map((image) => {
    const from = image.from === undefined ? 'new' : codeName(image.from);
    const to = image.to === undefined ? 'removed' : codeName(image.to);
    return `- ${codeName(image.repository)}: ${from} → ${to}\n`;
  });
}

/** A cell's code span, bounded like codeName. */
function cellCode(text: string): string {
  return tableCode(clipText(text, MAX_CELL));
}

function chartRows(result: AnalysisResult): string[] {
  return chartMoves(result).map((chart) => {
    const from = chart.from === undefined ? 'new' : cellCode(chart.from);
    const to = chart.to === undefined ? 'removed' : cellCode(chart.to);
    const shown = chart.producers.slice(0, RELEASES_SHOWN).map(cellCode).join(', ');
    const more = chart.producers.length - RELEASES_SHOWN;
    const releases = more > 0 ? `${shown} and ${more} more` : shown;
    const source =
      chart.fromSource === undefined
        ? cellCode(chart.source)
        : `source: ${cellCode(chart.fromSource)} → ${cellCode(chart.source)}`;
    const what = `${cellCode(chart.chart)} (${source})`;
    return `| ${what} | ${from} | ${to} | ${chart.producers.length} | ${releases} |\n`;
  });
}

function errorRows(result: AnalysisResult, pick: (c: ResultCluster) => RenderError[]): string[] {
  const multiCluster = result.clusters.length > 1;
  return result.clusters.flatMap((cluster) =>
    pick(cluster).map((error) => errorLine(error, multiCluster ? cluster.name : undefined)),
  );
}

type ResultCluster = AnalysisResult['clusters'][number];

/** A part of the summary: its Markdown within `budget` characters, '' with nothing to say. */
type SummarySection = (result: AnalysisResult, budget: number) => string;

const moreRows = (noun: string) => (n: number) =>
  `- … and ${plural(n, `more ${noun}`, `more ${noun}s`)}\n`;

function clusterSection(result: AnalysisResult, budget: number): string {
  return listSection(
    '#### Clusters\n\n| Cluster | Added | Removed | Changed | Moved | Findings |\n' +
      '| --- | ---: | ---: | ---: | ---: | ---: |\n',
    clusterRows(result),
    budget,
    (n) => `| … and ${plural(n, 'more cluster')} | | | | | |\n`,
  );
}

function imageSection(result: AnalysisResult, budget: number): string {
  return listSection('#### Image changes\n\n', imageRows(result), budget, moreRows('image change'));
}

function chartSection(result: AnalysisResult, budget: number): string {
  return listSection(
    '#### Chart changes\n\n| Chart | From | To | Releases | Installed by |\n| --- | --- | --- | ---: | --- |\n',
    chartRows(result),
    budget,
    (n) => `| … and ${plural(n, 'more chart change')} | | | | |\n`,
  );
}

function introducedSection(result: AnalysisResult, budget: number): string {
  const rows = errorRows(result, (c) => c.errorsIntroduced);
  return listSection('#### Render errors introduced\n\n', rows, budget, moreRows('error'));
}

function fixedSection(result: AnalysisResult, budget: number): string {
  const rows = errorRows(result, (c) => c.errorsFixed);
  return listSection('#### Render errors fixed\n\n', rows, budget, moreRows('error'));
}

/**
 * The lists after the findings and what was not assessed, in reading order; each may take
 * `listShare` of what is left when its turn comes.
 */
const LIST_SECTIONS: readonly SummarySection[] = [
  clusterSection,
  imageSection,
  chartSection,
  introducedSection,
  fixedSection,
];

/**
 * Verdict and counts, findings, what was not assessed, then the lists. What was not
 * assessed is measured before the findings (half of the budget at most) and shown after
 * them, so that many findings cannot crowd it out.
 */
export function renderMarkdownSummary(
  result: AnalysisResult,
  opts: MarkdownSummaryOptions,
): string {
  const head = markdownVerdict(result) + countsLine(result);
  const notAssessed = unassessedSection(result, Math.floor((opts.budget - head.length) / 2));
  const findings = findingsSection(
    findingLines(result),
    opts.budget - head.length - notAssessed.length,
  );
  let text = head + findings + notAssessed;
  for (const section of LIST_SECTIONS) {
    text += section(result, Math.max(0, Math.floor((opts.budget - text.length) * opts.listShare)));
  }
  return text;
}
