/**
 * The object diffs of the PR comment and the check-run text: one `<details>` per cluster
 * and per producer, riskiest first, filled until a character budget runs out. Whatever
 * happens, every fence and `<details>` opened is closed and the text stays in budget.
 */
import { type ResourceChange, plural } from '../model/index.js';
import { clipText } from './clip-text.js';
import { codeName, fenceFor } from './escape-markdown.js';
import { escapeHtml } from './html-escape.js';
import type { ClusterGroup, ProducerGroup } from './group-changes.js';
import { levelLabel, producerLabel, resourceLabel } from './resource-label.js';

/** One diff line longer than this is cut: minified JSON must not eat the comment. */
const MAX_DIFF_LINE = 1000;
/** One object's diff takes at most a fifth of the budget (or this much), so others show too. */
const OBJECT_SHARE = 1 / 5;
const MIN_OBJECT_CHARS = 1500;
const MAX_SUMMARY_NAME = 300;

const HEADER = '#### Changes\n\n';
const DETAILS_CLOSE = '</details>\n\n';

export interface Omission {
  /** Objects with nothing shown. */
  objects: number;
  /** Producers with at least one object not shown. */
  producers: number;
  /** Diffs shown only in part. */
  cut: number;
}

export interface MarkdownChanges {
  text: string;
  omitted: Omission;
}

function statusCounts(changes: readonly ResourceChange[]): string {
  const counts = new Map<string, number>();
  for (const change of changes) counts.set(change.status, (counts.get(change.status) ?? 0) + 1);
  return (['added', 'removed', 'changed', 'moved'] as const)
    .filter((status) => counts.has(status))
    .map((status) => `${counts.get(status)} ${status}`)
    .join(', ');
}

function htmlCode(text: string): string {
  return `<code>${escapeHtml(clipText(text, MAX_SUMMARY_NAME))}</code>`;
}

function clusterOpen(group: ClusterGroup): string {
  const changes = group.producers.flatMap((p) => p.changes);
  const counts = `${statusCounts(changes)} in ${plural(group.producers.length, 'producer')}`;
  return `<details open><summary>Cluster ${htmlCode(group.cluster)}: ${counts}</summary>\n\n`;
}

function producerOpen(group: ProducerGroup): string {
  const badge = group.level === 'none' ? '' : `<b>${levelLabel(group.level)}</b> `;
  return `<details><summary>${badge}${htmlCode(group.key)}: ${statusCounts(group.changes)}</summary>\n\n`;
}

function objectHeader(change: ResourceChange): string {
  const moved =
    change.status === 'moved' && change.previousProducer
      ? ` from ${codeName(producerLabel(change.previousProducer))}`
      : '';
  const file = change.file ? ` · ${codeName(change.file)}` : '';
  return `**${change.status}** ${codeName(resourceLabel(change))}${moved}${file}\n\n`;
}

function diffLines(diff: string): string[] {
  if (diff === '') return [];
  const lines = diff.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  return lines.map((line) => clipText(line, MAX_DIFF_LINE));
}

function moreLines(count: number): string {
  return `… ${plural(count, 'more line')}\n`;
}

/**
 * The object's header and diff in at most `limit` characters: whole, or cut after the last
 * line that fits with a "… N more lines" line; undefined when not even one line fits.
 */
export function objectBlock(
  change: ResourceChange,
  limit: number,
): { text: string; cut: boolean } | undefined {
  const header = objectHeader(change);
  const lines = diffLines(change.diff);
  if (lines.length === 0) {
    const text = `${header}_${change.contentChanged ? 'No text diff.' : 'No content change.'}_\n\n`;
    return text.length <= limit ? { text, cut: false } : undefined;
  }
  const fence = fenceFor(change.diff);
  const open = `${fence}diff\n`;
  const close = `${fence}\n\n`;
  const body = lines.map((line) => `${line}\n`).join('');
  const full = header + open + body + close;
  if (full.length <= limit) return { text: full, cut: false };
  let used = header.length + open.length + close.length + moreLines(lines.length).length;
  let kept = '';
  let shown = 0;
  for (const line of lines) {
    if (used + line.length + 1 > limit) break;
    used += line.length + 1;
    kept += `${line}\n`;
    shown += 1;
  }
  if (shown === 0) return undefined;
  return { text: header + open + kept + moreLines(lines.length - shown) + close, cut: true };
}

/** What the footer would say if nothing at all were shown: the most it can ever say. */
export function worstOmission(groups: readonly ClusterGroup[]): Omission {
  const producers = groups.reduce((n, g) => n + g.producers.length, 0);
  const objects = groups.reduce(
    (n, g) => n + g.producers.reduce((m, p) => m + p.changes.length, 0),
    0,
  );
  return { objects, producers, cut: objects };
}

/**
 * Fills `budget` with object diffs in the groups' order. An object that does not fit whole
 * is cut at a line boundary; after a cut forced by the budget nothing more is added, so
 * what is shown is always a prefix of the risk order.
 */
export function renderMarkdownChanges(
  groups: readonly ClusterGroup[],
  budget: number,
): MarkdownChanges {
  const objectCap = Math.max(MIN_OBJECT_CHARS, Math.floor(budget * OBJECT_SHARE));
  const omittedProducers = new Set<string>();
  const omitted: Omission = { objects: 0, producers: 0, cut: 0 };
  let text = '';
  let stopped = false;
  for (const cluster of groups) {
    const clusterHead = clusterOpen(cluster);
    let clusterOpened = false;
    for (const producer of cluster.producers) {
      const producerHead = producerOpen(producer);
      let producerOpened = false;
      for (const change of producer.changes) {
        const block = stopped
          ? undefined
          : fit(change, {
              opening:
                (text === '' ? HEADER.length : 0) +
                (clusterOpened ? 0 : clusterHead.length + DETAILS_CLOSE.length) +
                (producerOpened ? 0 : producerHead.length + DETAILS_CLOSE.length),
              closing:
                (clusterOpened ? DETAILS_CLOSE.length : 0) +
                (producerOpened ? DETAILS_CLOSE.length : 0),
              room: budget - text.length,
              objectCap,
            });
        if (!block) {
          stopped = true;
          omitted.objects += 1;
          omittedProducers.add(JSON.stringify([cluster.cluster, producer.key]));
          continue;
        }
        if (text === '') text = HEADER;
        if (!clusterOpened) text += clusterHead;
        if (!producerOpened) text += producerHead;
        clusterOpened = producerOpened = true;
        text += block.text;
        if (block.cut) omitted.cut += 1;
        if (block.cut && !block.capped) stopped = true;
      }
      if (producerOpened) text += DETAILS_CLOSE;
    }
    if (clusterOpened) text += DETAILS_CLOSE;
  }
  omitted.producers = omittedProducers.size;
  return { text, omitted };
}

function fit(
  change: ResourceChange,
  space: { opening: number; closing: number; room: number; objectCap: number },
): { text: string; cut: boolean; capped: boolean } | undefined {
  const room = space.room - space.opening - space.closing;
  if (space.objectCap < room) {
    const block = objectBlock(change, space.objectCap);
    if (block) return { ...block, capped: true };
  }
  const block = objectBlock(change, room);
  return block && { ...block, capped: false };
}

/** Percent-encodes what cannot stand inside a `<…>` link destination. */
function linkDestination(url: string): string {
  return url.replace(/[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/g, (c) => encodeURIComponent(c));
}

/** A URL longer than this is not linked: a cut URL would point somewhere else. */
const MAX_URL = 4000;

/** The closing line: what was left out, and where the full report is. */
export function omissionFooter(omitted: Omission, reportUrl: string | undefined): string {
  const parts: string[] = [];
  if (omitted.objects > 0) {
    parts.push(
      `${plural(omitted.objects, 'object')} in ${plural(omitted.producers, 'producer')} not shown`,
    );
  }
  if (omitted.cut > 0) parts.push(`${plural(omitted.cut, 'diff')} shortened`);
  const sentence = parts.length > 0 ? `_${parts.join('; ')}._` : '';
  const link =
    reportUrl !== undefined && reportUrl !== '' && reportUrl.length <= MAX_URL
      ? `[Full report](<${linkDestination(reportUrl)}>)`
      : '';
  const line = [sentence, link].filter((s) => s !== '').join(' ');
  return line === '' ? '' : `---\n\n${line}\n`;
}
