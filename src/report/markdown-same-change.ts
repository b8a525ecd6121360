/**
 * A same-change group in the PR comment: its objects listed, then one diff, the first
 * object's, for all of them. The diff comes before completeness of the list: when both do
 * not fit, the list is cut to a third of the room with "… and N more objects".
 */
import { plural, type ResourceChange } from '../model/index.js';
import { codeName } from './escape-markdown.js';
import type { SameChangeGroup } from './group-changes.js';
import { type Block, objectBlock } from './markdown-object-block.js';
import { levelLabel, producerLabel, resourceLabel } from './resource-label.js';

const LIST_SHARE = 1 / 3;

function objectLine(change: ResourceChange, level: SameChangeGroup['level']): string {
  const file = change.file ? ` · ${codeName(change.file)}` : '';
  const badge = level === 'none' ? '' : ` **${levelLabel(level)}**`;
  return `- ${codeName(resourceLabel(change))} from ${codeName(producerLabel(change.producer))}${file}${badge}\n`;
}

function moreObjects(count: number): string {
  return `- … and ${plural(count, 'more object')}\n`;
}

/** As many object lines as fit in `room`, then how many were left out. */
function objectList(lines: readonly string[], room: number): string {
  const all = lines.join('');
  if (all.length + 1 <= room) return `${all}\n`;
  const reserve = moreObjects(lines.length).length + 1;
  let text = '';
  let shown = 0;
  for (const line of lines) {
    if (text.length + line.length + reserve > room) break;
    text += line;
    shown += 1;
  }
  return `${text}${moreObjects(lines.length - shown)}\n`;
}

export function sameChangeBlock(group: SameChangeGroup, limit: number): Block | undefined {
  const [first] = group.changes;
  if (!first) return undefined;
  const lines = group.changes.map((change, i) => objectLine(change, group.levels[i] ?? 'none'));
  const whole = objectList(lines, Number.POSITIVE_INFINITY);
  const roomy = objectBlock(first, limit - whole.length);
  if (roomy && !roomy.cut) return { text: whole + roomy.text, cut: false };
  const list = objectList(lines, Math.floor(limit * LIST_SHARE));
  const block = objectBlock(first, limit - list.length);
  return block && { text: list + block.text, cut: block.cut };
}
