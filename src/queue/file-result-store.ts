import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CommitShaSchema } from './commit-sha-schema.js';
import { pullKey } from './pull-key.js';
import type { PullRef, ResultStore } from './types.js';

const HeaderSchema = z.object({ headSha: CommitShaSchema });
/** The header line is short; has() reads only this much of a possibly large file. */
const HEADER_BYTES = 128;

/**
 * Results on disk, one file per PR: a JSON header line with the head SHA, then the result
 * as given. Written to a temp file and renamed, so a crash never leaves half a result.
 */
export function createFileResultStore(dir: string): ResultStore {
  const fileOf = (pull: PullRef) => path.join(dir, `${pullKey(pull)}.result`);
  return {
    async put(pull, headSha, resultJson) {
      HeaderSchema.parse({ headSha });
      await mkdir(dir, { recursive: true });
      const file = fileOf(pull);
      const temp = `${file}.${randomUUID()}.tmp`;
      try {
        await writeFile(temp, `${JSON.stringify({ headSha })}\n${resultJson}`);
        await rename(temp, file);
      } finally {
        await rm(temp, { force: true });
      }
    },
    async get(pull) {
      const text = await readOrUndefined(fileOf(pull));
      if (text === undefined) return undefined;
      const newline = text.indexOf('\n');
      const header = HeaderSchema.parse(JSON.parse(text.slice(0, newline)));
      return { headSha: header.headSha, resultJson: text.slice(newline + 1) };
    },
    async has(pull, headSha) {
      return (await readHeadSha(fileOf(pull))) === headSha;
    },
  };
}

async function readOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

async function readHeadSha(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
    const head = buffer.subarray(0, bytesRead).toString('utf8');
    return HeaderSchema.parse(JSON.parse(head.slice(0, head.indexOf('\n')))).headSha;
  } finally {
    await handle.close();
  }
}

function isMissing(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'ENOENT';
}

/** Results in memory, for an inline queue without a result directory (tests, one-shots). */
export function createMemoryResultStore(): ResultStore {
  const results = new Map<string, { headSha: string; resultJson: string }>();
  return {
    put(pull, headSha, resultJson) {
      HeaderSchema.parse({ headSha });
      results.set(pullKey(pull), { headSha, resultJson });
      return Promise.resolve();
    },
    get(pull) {
      return Promise.resolve(results.get(pullKey(pull)));
    },
    has(pull, headSha) {
      return Promise.resolve(results.get(pullKey(pull))?.headSha === headSha);
    },
  };
}
