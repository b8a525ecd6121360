/**
 * The terminal report of `fluxlens diff`: the same content as the PR comment, as plain
 * text, with ANSI colour only when asked for. Repository text is stripped of control
 * characters, so a name cannot move the cursor or recolour the terminal.
 */
import {
  type AnalysisResult,
  type LevelOrNone,
  type RenderError,
  type ResourceChange,
  plural,
} from '../model/index.js';
import { clipText } from './clip-text.js';
import { displayText as clean } from './display-text.js';
import {
  type SameChangeGroup,
  changesByResource,
  clusterChanges,
  clusterSections,
  findingResourceKey,
  groupChanges,
} from './group-changes.js';
import { type GroupMember, producerCount, someMembers } from './error-causes.js';
import { persistingErrorList, persistingGroups } from './markdown-errors.js';
import {
  levelLabel,
  marksRoutine,
  producerLabel,
  resourceLabel,
  sourceLocation,
} from './resource-label.js';
import { sameChangeTitle } from './same-change-title.js';
import { unassessedGroups, unassessedSide } from './unassessed-groups.js';
import { RELEASES_SHOWN, chartMoves, imageMoves } from './version-changes.js';

/** A failing producer's message on one line of a list, bounded: the JSON keeps it whole. */
const MAX_SAMPLE_MESSAGE = 300;

export interface TextOptions {
  color: boolean;
}

type Paint = (text: string) => string;

interface Palette {
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
}

function sgr(code: string): Paint {
  return (text) => `\u001b[${code}m${text}\u001b[0m`;
}

const PLAIN: Palette = {
  bold: (t) => t,
  dim: (t) => t,
  red: (t) => t,
  green: (t) => t,
  yellow: (t) => t,
  cyan: (t) => t,
};

const COLOR: Palette = {
  bold: sgr('1'),
  dim: sgr('2'),
  red: sgr('31'),
  green: sgr('32'),
  yellow: sgr('33'),
  cyan: sgr('36'),
};

/** One line: newlines and tabs too become spaces. */
function cleanLine(text: string): string {
  return clean(text).replace(/\s+/g, ' ').trim();
}

function badge(level: LevelOrNone, p: Palette): string {
  const label = levelLabel(level);
  if (level === 'danger') return p.bold(p.red(label));
  if (level === 'caution') return p.bold(p.yellow(label));
  if (level === 'info') return p.cyan(label);
  return p.bold(p.green(label));
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

function header(result: AnalysisResult, p: Palette): string[] {
  const { verdict, summary, base, head } = result;
  const headline = cleanLine(verdict.headline);
  const routine = marksRoutine(verdict) ? p.dim(' (routine)') : '';
  const rev = (r: { rev: string; sha: string }) =>
    `${cleanLine(r.rev)} (${cleanLine(r.sha.slice(0, 12))})`;
  const levels = (['danger', 'caution', 'info'] as const)
    .map((level) => [level, result.findings.filter((f) => f.level === level).length] as const)
    .filter(([, n]) => n > 0)
    .map(([level, n]) => `${n} ${level}`);
  return [
    `${p.bold('fluxlens')} ${badge(verdict.level, p)}${headline === '' ? '' : ` ${headline}`}${routine}`,
    p.dim(`${rev(base)} → ${rev(head)}`),
    `${summary.added} added, ${summary.removed} removed, ${summary.changed} changed, ${summary.moved} moved, ` +
      `${plural(result.findings.length, 'finding')}${levels.length ? ` (${levels.join(', ')})` : ''}`,
  ];
}

/** A producer as a group names it, with its cluster when there are several. */
function memberText(m: GroupMember, multiCluster: boolean): string {
  const where = multiCluster ? ` in ${cleanLine(m.cluster)}` : '';
  return `${cleanLine(producerLabel(m.producer))}${where}`;
}

/**
 * After the findings, as in the PR comment: grouped by cause, and said in words, so that
 * no finding list reads as "nothing risky" for what was not rendered.
 */
function unassessed(result: AnalysisResult, p: Palette): string[] {
  const groups = unassessedGroups(result);
  if (groups.length === 0) return [];
  const multiCluster = result.clusters.length > 1;
  const count = groups.reduce((n, g) => n + g.members.length, 0);
  const lines = ['', p.bold(p.yellow('Not assessed'))];
  if (count > 1) {
    lines.push(
      `  ${count} producers the PR changes could not be rendered, so their changes were not assessed:`,
    );
  }
  for (const { cause, members } of groups) {
    const [first] = members;
    if (!first) continue;
    const side = unassessedSide(first.side);
    const why = cleanLine(cause.label);
    lines.push(
      members.length === 1
        ? `  ${p.bold(memberText(first, multiCluster))}: could not be rendered ${side} (${why}); ` +
            'its changes were not assessed'
        : `  ${p.bold(producerCount(members))} could not be rendered ${side} (${why}): ` +
            someMembers(members, (m) => memberText(m, multiCluster)),
    );
  }
  return lines;
}

function findings(result: AnalysisResult, p: Palette): string[] {
  if (result.findings.length === 0) return [];
  const byResource = changesByResource(result.changes);
  const multiCluster = result.clusters.length > 1;
  const lines = ['', p.bold('Findings')];
  for (const finding of result.findings) {
    const change = byResource.get(findingResourceKey(finding));
    const producer = finding.producer ?? change?.producer;
    const location = sourceLocation(finding.file ?? change?.file, finding.line);
    const where = [
      multiCluster ? `cluster ${cleanLine(finding.cluster)}` : '',
      producer ? `from ${cleanLine(producerLabel(producer))}` : '',
      location ? `at ${cleanLine(location)}` : '',
    ].filter((s) => s !== '');
    lines.push(
      `  ${badge(finding.level, p)} ${p.bold(cleanLine(resourceLabel(finding.resource)))}`,
    );
    if (where.length) lines.push(`    ${p.dim(where.join(' '))}`);
    lines.push(`    ${cleanLine(finding.message)} ${p.dim(`(${cleanLine(finding.rule)})`)}`);
  }
  return lines;
}

function images(result: AnalysisResult, p: Palette): string[] {
  const rows = imageMoves(result).map((image) => {
    const from = image.from === undefined ? p.dim('new') : cleanLine(image.from);
    const to = image.to === undefined ? p.dim('removed') : cleanLine(image.to);
    return `  ${cleanLine(image.repository)}  ${from} → ${to}`;
  });
  return rows.length === 0 ? [] : ['', p.bold('Image changes'), ...rows];
}

function charts(result: AnalysisResult, p: Palette): string[] {
  const lines: string[] = [];
  for (const chart of chartMoves(result)) {
    const from = chart.from === undefined ? p.dim('new') : cleanLine(chart.from);
    const to = chart.to === undefined ? p.dim('removed') : cleanLine(chart.to);
    const moved = chart.fromSource === undefined ? '' : `source: ${cleanLine(chart.fromSource)} → `;
    const source = p.dim(`(${moved}${cleanLine(chart.source)})`);
    lines.push(`  ${cleanLine(chart.chart)} ${source}  ${from} → ${to}`);
    const shown = chart.producers.slice(0, RELEASES_SHOWN).map(cleanLine).join(', ');
    const more = chart.producers.length - RELEASES_SHOWN;
    const releases = more > 0 ? `${shown} and ${more} more` : shown;
    lines.push(`    ${p.dim(`${plural(chart.producers.length, 'release')}:`)} ${releases}`);
  }
  return lines.length === 0 ? [] : ['', p.bold('Chart changes'), ...lines];
}

function errors(result: AnalysisResult, p: Palette): string[] {
  const multiCluster = result.clusters.length > 1;
  const row = (cluster: string, error: RenderError) => {
    const file = error.file ? ` (${cleanLine(error.file)})` : '';
    const where = multiCluster ? ` in cluster ${cleanLine(cluster)}` : '';
    const message = indent(clean(error.message).trimEnd(), '    ');
    return `  ${p.bold(cleanLine(producerLabel(error.producer)))}${file}${where}\n${message}`;
  };
  const introduced = result.clusters.flatMap((c) => c.errorsIntroduced.map((e) => row(c.name, e)));
  const fixed = result.clusters.flatMap((c) => c.errorsFixed.map((e) => row(c.name, e)));
  const lines: string[] = [];
  if (introduced.length) lines.push('', p.bold(p.red('Render errors introduced')), ...introduced);
  if (fixed.length) lines.push('', p.bold(p.green('Render errors fixed')), ...fixed);
  // As in the PR comment: a producer failing on both sides hides its changes; say how many,
  // and why, one line per cause.
  const persisting = persistingErrorList(result).length;
  if (persisting > 0) {
    lines.push('', p.dim(`${plural(persisting, 'render error')} at head also failed at base:`));
    for (const { cause, members } of persistingGroups(result)) {
      const [first] = members;
      if (!first) continue;
      const names = someMembers(members, (m) => memberText(m, multiCluster));
      lines.push(
        p.dim(
          members.length === 1
            ? `  ${names}: ${clipText(cleanLine(first.message), MAX_SAMPLE_MESSAGE)}`
            : `  ${producerCount(members)}: ${cleanLine(cause.label)}: ${names}`,
        ),
      );
    }
  }
  return lines;
}

function statusCounts(changes: readonly ResourceChange[]): string {
  return (['added', 'removed', 'changed', 'moved'] as const)
    .map((status) => [status, changes.filter((c) => c.status === status).length] as const)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
}

/** The unified diff without its `---`/`+++` file header: the object line already says what it is. */
function compactDiff(diff: string, p: Palette): string[] {
  const lines = clean(diff).replace(/\n$/, '').split('\n');
  const firstHunk = lines.findIndex((line) => line.startsWith('@@'));
  const body = firstHunk > 0 ? lines.slice(firstHunk) : lines;
  return body.map((line) => {
    if (line.startsWith('@@')) return p.cyan(line);
    if (line.startsWith('+')) return p.green(line);
    if (line.startsWith('-')) return p.red(line);
    return line;
  });
}

function objectLines(change: ResourceChange, p: Palette): string[] {
  const moved =
    change.status === 'moved' && change.previousProducer
      ? ` from ${cleanLine(producerLabel(change.previousProducer))}`
      : '';
  const file = change.file ? p.dim(` (${cleanLine(change.file)})`) : '';
  const lines = [`    ${p.bold(change.status)} ${cleanLine(resourceLabel(change))}${moved}${file}`];
  if (change.diff !== '') lines.push(...compactDiff(change.diff, p).map((line) => `      ${line}`));
  return lines;
}

/** A same-change group: its objects, then the first one's diff for all of them. */
function sameLines(group: SameChangeGroup, p: Palette): string[] {
  const title = sameChangeTitle(group.changes);
  const fields = title.fields.map((f) => `${f.sign} ${cleanLine(f.path)}`).join(', ');
  const more = title.moreFields > 0 ? ` and ${plural(title.moreFields, 'more field')}` : '';
  const level = group.level === 'none' ? '' : `${badge(group.level, p)} `;
  const what = fields === '' ? title.status : `${fields}${more}`;
  const lines = [`  ${level}${p.bold(title.lead)}: ${what}`];
  group.changes.forEach((change, i) => {
    const own = group.levels[i] ?? 'none';
    const mark = own === 'none' ? '' : ` ${badge(own, p)}`;
    const from = p.dim(`from ${cleanLine(producerLabel(change.producer))}`);
    lines.push(`    ${cleanLine(resourceLabel(change))} ${from}${mark}`);
  });
  const [first] = group.changes;
  if (first) lines.push(...objectLines(first, p));
  return lines;
}

function changes(result: AnalysisResult, p: Palette): string[] {
  const groups = groupChanges(result);
  if (groups.length === 0) return ['', p.dim('No object changes.')];
  const lines = ['', p.bold('Changes')];
  for (const cluster of groups) {
    const all = clusterChanges(cluster);
    const producers = new Set(all.map((c) => producerLabel(c.producer))).size;
    lines.push(
      `${p.bold(`cluster ${cleanLine(cluster.cluster)}`)}: ${statusCounts(all)} in ` +
        plural(producers, 'producer'),
    );
    for (const section of clusterSections(cluster)) {
      if (section.type === 'same') {
        lines.push(...sameLines(section.group, p));
        continue;
      }
      const producer = section.group;
      const level = producer.level === 'none' ? '' : `${badge(producer.level, p)} `;
      lines.push(`  ${level}${p.bold(cleanLine(producer.key))}: ${statusCounts(producer.changes)}`);
      for (const change of producer.changes) lines.push(...objectLines(change, p));
    }
  }
  return lines;
}

export function renderText(result: AnalysisResult, opts: TextOptions): string {
  const p = opts.color ? COLOR : PLAIN;
  const lines = [
    ...header(result, p),
    ...findings(result, p),
    ...unassessed(result, p),
    ...images(result, p),
    ...charts(result, p),
    ...errors(result, p),
    ...changes(result, p),
  ];
  if (result.reportUrl) lines.push('', `Full report: ${cleanLine(result.reportUrl)}`);
  return `${lines.join('\n')}\n`;
}
