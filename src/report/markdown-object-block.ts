/**
 * One object's header and diff as the PR comment shows it, cut at a line boundary to fit
 * a character limit; every fence opened is closed.
 */
import { type ResourceChange, plural } from '../model/index.js';
import { clipText } from './clip-text.js';
import { codeName, fenceFor } from './escape-markdown.js';
import { producerLabel, resourceLabel } from './resource-label.js';

/** One diff line longer than this is cut: minified JSON must not eat the comment. */
const MAX_DIFF_LINE = 1000;

export interface Block {
  text: string;
  cut: boolean;
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
export function objectBlock(change: ResourceChange, limit: number): Block | undefined {
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
