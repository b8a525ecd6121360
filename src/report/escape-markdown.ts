/**
 * Markdown escaping for names and messages taken from the repository: nothing a PR author
 * writes can add emphasis, links, HTML, table cells or close a code fence. Raw HTML in a
 * comment (a `<summary>` line) is escaped with html-escape.ts.
 */
import { clipText, oneLine } from './clip-text.js';

/** Bounds on single values, so one oversized name or message cannot crowd out the rest. */
const MAX_NAME = 500;
const MAX_MESSAGE = 4000;

/** Characters with meaning inside a line of GitHub Markdown (line-start markers aside). */
const MARKDOWN_SPECIAL = /[\\`*_[\]|~]/g;

/**
 * Escapes free text (a finding message, a headline) for use inside a line of Markdown.
 * `@` and `#` get an invisible joiner after them, so an image digest (`nginx@sha256`) or
 * a name never mentions a GitHub user or links an issue.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(MARKDOWN_SPECIAL, (c) => `\\${c}`)
    .replace(/([@#])(?=[\w-])/g, '$1&#8288;');
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * A code span that shows `text` verbatim: its delimiter is longer than any backtick run
 * inside, and it is padded when the text starts or ends with a backtick or a space.
 */
export function inlineCode(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  if (flat.trim() === '') return '` `';
  const ticks = '`'.repeat(longestBacktickRun(flat) + 1);
  const pad = /^[` ]|[` ]$/.test(flat) ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** A code span inside a GFM table cell, where a pipe ends the cell even inside code. */
export function tableCode(text: string): string {
  return inlineCode(text).replace(/\|/g, '\\|');
}

/** A backtick fence that no line of `text` can close: longer than any backtick run in it. */
export function fenceFor(text: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
}

/** A name, path or rule id as a code span, bounded in length. */
export function codeName(text: string): string {
  return inlineCode(clipText(text, MAX_NAME));
}

/** Free text (a message, a headline) as one escaped line of Markdown, bounded in length. */
export function markdownLine(text: string, max = MAX_MESSAGE): string {
  return escapeMarkdown(clipText(oneLine(text), max));
}
