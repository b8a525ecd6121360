/**
 * The files a GitHub Actions step writes to talk to the runner: the job summary (Markdown,
 * at most 1 MiB per step), the outputs file, and workflow commands on stdout.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, stat } from 'node:fs/promises';
import { errorMessage, SetupError } from '../errors.js';
import type { AnalysisResult } from '../model/index.js';
import { renderMarkdown } from '../report/index.js';

/** GitHub refuses a step's summary over 1 MiB (and shows none of it). */
export const SUMMARY_MAX_BYTES = 1024 * 1024;
/** A UTF-16 code unit is at most three bytes of UTF-8. */
const MAX_BYTES_PER_CHAR = 3;

/**
 * The Markdown report in at most `maxBytes` of UTF-8: renderMarkdown bounds characters, so
 * the budget shrinks by the overshoot until it fits, and at worst assumes three bytes each.
 */
export function markdownWithinBytes(result: AnalysisResult, maxBytes: number): string {
  let chars = maxBytes;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const text = renderMarkdown(result, { maxChars: chars });
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes <= maxBytes) return text;
    chars = Math.floor((chars * maxBytes) / bytes) - 1;
  }
  return renderMarkdown(result, { maxChars: Math.floor(maxBytes / MAX_BYTES_PER_CHAR) });
}

async function sizeOf(file: string): Promise<number> {
  const info = await stat(file).catch(() => undefined);
  return info?.size ?? 0;
}

async function append(file: string, text: string, what: string): Promise<void> {
  await appendFile(file, text, 'utf8').catch((err: unknown) => {
    throw new SetupError(`cannot write the ${what} (${file}): ${errorMessage(err)}`, {
      cause: err,
    });
  });
}

/**
 * Appends the report to the step's summary within what is left of its 1 MiB; false when
 * too little is left for even the verdict line.
 */
export async function appendSummary(file: string, result: AnalysisResult): Promise<boolean> {
  const used = await sizeOf(file);
  const separator = used > 0 ? '\n' : '';
  const room = SUMMARY_MAX_BYTES - used - separator.length;
  if (room < 1024) return false;
  await append(file, separator + markdownWithinBytes(result, room), 'job summary');
  return true;
}

/**
 * Step outputs in the runner's `name<<DELIMITER` form, which holds any value; the delimiter
 * is random, so no value can end a record early.
 */
export async function writeOutputs(file: string, outputs: Record<string, string>): Promise<void> {
  const records = Object.entries(outputs).map(([name, value]) => {
    const delimiter = `fluxlens_${randomUUID()}`;
    return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  });
  await append(file, records.join(''), 'step outputs');
}

/** `::warning::message`, with the characters the runner reads as syntax escaped. */
export function warningCommand(message: string): string {
  const data = message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  return `::warning::${data}\n`;
}
