/**
 * The object diffs of the PR comment and the check-run text: one `<details>` per cluster,
 * per same-change group and per producer, riskiest first, filled until a character budget
 * runs out. Whatever happens, every fence and `<details>` opened is closed and the text
 * stays in budget.
 */
import { type ResourceChange, producerKey, plural } from '../model/index.js';
import { clipText } from './clip-text.js';
import { escapeHtml } from './html-escape.js';
import {
  type ClusterGroup,
  type ClusterSection,
  type ProducerGroup,
  clusterChanges,
  clusterSections,
} from './group-changes.js';
import { type Block, objectBlock } from './markdown-object-block.js';
import { sameChangeBlock } from './markdown-same-change.js';
import { levelLabel } from './resource-label.js';
import { sameChangeTitle } from './same-change-title.js';

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
  const changes = clusterChanges(group);
  const producers = new Set(changes.map((c) => producerKey(c.producer))).size;
  const counts = `${statusCounts(changes)} in ${plural(producers, 'producer')}`;
  return `<details open><summary>Cluster ${htmlCode(group.cluster)}: ${counts}</summary>\n\n`;
}

function badge(level: ProducerGroup['level']): string {
  return level === 'none' ? '' : `<b>${levelLabel(level)}</b> `;
}

function sectionOpen(section: ClusterSection): string {
  if (section.type === 'producer') {
    const { group } = section;
    return `<details><summary>${badge(group.level)}${htmlCode(group.key)}: ${statusCounts(group.changes)}</summary>\n\n`;
  }
  const title = sameChangeTitle(section.group.changes);
  const fields = title.fields.map((f) => `${f.sign} ${htmlCode(f.path)}`).join(', ');
  const more = title.moreFields > 0 ? ` and ${plural(title.moreFields, 'more field')}` : '';
  const what = fields === '' ? escapeHtml(title.status) : `${fields}${more}`;
  return `<details><summary>${badge(section.level)}${escapeHtml(title.lead)}: ${what}</summary>\n\n`;
}

/** What the footer would say if nothing at all were shown: the most it can ever say. */
export function worstOmission(groups: readonly ClusterGroup[]): Omission {
  const changes = groups.flatMap((g) => clusterChanges(g).map((c) => [g.cluster, c] as const));
  const producers = new Set(
    changes.map(([cluster, c]) => `${cluster}\n${producerKey(c.producer)}`),
  );
  return { objects: changes.length, producers: producers.size, cut: changes.length };
}

/** What one block stands for: the changes it shows, drawn at a given limit. */
interface Unit {
  changes: readonly ResourceChange[];
  draw: (limit: number) => Block | undefined;
}

function units(section: ClusterSection): Unit[] {
  if (section.type === 'same') {
    const { group } = section;
    return [{ changes: group.changes, draw: (limit) => sameChangeBlock(group, limit) }];
  }
  return section.group.changes.map((change) => ({
    changes: [change],
    draw: (limit) => objectBlock(change, limit),
  }));
}

/**
 * Fills `budget` with object diffs in the groups' order, a same-change group as one block
 * (its objects listed, one diff). A block that does not fit whole is cut at a line
 * boundary; after a cut forced by the budget nothing more is added, so what is shown is
 * always a prefix of the risk order.
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
    for (const section of clusterSections(cluster)) {
      const sectionHead = sectionOpen(section);
      let sectionOpened = false;
      for (const unit of units(section)) {
        const block = stopped
          ? undefined
          : fit(unit, {
              opening:
                (text === '' ? HEADER.length : 0) +
                (clusterOpened ? 0 : clusterHead.length + DETAILS_CLOSE.length) +
                (sectionOpened ? 0 : sectionHead.length + DETAILS_CLOSE.length),
              closing:
                (clusterOpened ? DETAILS_CLOSE.length : 0) +
                (sectionOpened ? DETAILS_CLOSE.length : 0),
              room: budget - text.length,
              objectCap,
            });
        if (!block) {
          stopped = true;
          omitted.objects += unit.changes.length;
          for (const change of unit.changes) {
            omittedProducers.add(JSON.stringify([cluster.cluster, producerKey(change.producer)]));
          }
          continue;
        }
        if (text === '') text = HEADER;
        if (!clusterOpened) text += clusterHead;
        if (!sectionOpened) text += sectionHead;
        clusterOpened = sectionOpened = true;
        text += block.text;
        if (block.cut) omitted.cut += 1;
        if (block.cut && !block.capped) stopped = true;
      }
      if (sectionOpened) text += DETAILS_CLOSE;
    }
    if (clusterOpened) text += DETAILS_CLOSE;
  }
  omitted.producers = omittedProducers.size;
  return { text, omitted };
}

function fit(
  unit: Unit,
  space: { opening: number; closing: number; room: number; objectCap: number },
): (Block & { capped: boolean }) | undefined {
  const room = space.room - space.opening - space.closing;
  if (space.objectCap < room) {
    const block = unit.draw(space.objectCap);
    if (block) return { ...block, capped: true };
  }
  const block = unit.draw(room);
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
