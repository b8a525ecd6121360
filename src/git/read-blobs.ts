/**
 * The text of many blobs through one `git cat-file --batch`: what a caller needs to read of
 * a revision before deciding what to write out. Blobs the repository lacks are left out.
 */
import type { ToolRunner } from '../tool-runner.js';
import type { GitOptions } from './merge-base.js';

/** The output could not be split into blobs (text that is not UTF-8 shifts the counts). */
export class UnreadableBlobsError extends Error {
  constructor() {
    super('git cat-file output could not be read as text');
    this.name = 'UnreadableBlobsError';
  }
}

/** Blob text by object id, for the ids the repository holds. */
export async function readBlobs(
  runner: ToolRunner,
  repoDir: string,
  oids: readonly string[],
  options: GitOptions & { maxBytes: number },
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  if (oids.length === 0) return texts;
  const { stdout } = await runner.run('git', ['-C', repoDir, 'cat-file', '--batch'], {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    // Each answer has a header line besides the content.
    maxOutputBytes: options.maxBytes + oids.length * 128,
    input: `${oids.join('\n')}\n`,
  });
  // Sizes count bytes: the output is read back as the bytes git wrote, which UTF-8 text is.
  const out = Buffer.from(stdout, 'utf8');
  let at = 0;
  for (const oid of oids) {
    const end = out.indexOf(10, at);
    if (end < 0) throw new UnreadableBlobsError();
    const header = out.toString('utf8', at, end).split(' ');
    at = end + 1;
    if (header[0] !== oid) throw new UnreadableBlobsError();
    // `<oid> missing` (or ambiguous) has no content after it.
    if (header.length < 3) continue;
    const size = Number(header[2]);
    if (!Number.isInteger(size) || out[at + size] !== 10) throw new UnreadableBlobsError();
    if (header[1] === 'blob') texts.set(oid, out.toString('utf8', at, at + size));
    at += size + 1;
  }
  return texts;
}
