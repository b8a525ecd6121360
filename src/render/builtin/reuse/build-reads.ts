/**
 * The files of a revision the builtin engine writes out before rendering: what its builds
 * can read (export-set.ts), kept in the render cache by commit and entry, or every file
 * when that cannot be told from git.
 */
import { readBlobs, UnreadableBlobsError, type TreeFile } from '../../../git/index.js';
import type { ToolRunner } from '../../../tool-runner.js';
import { renderCacheKey, type RenderCache } from '../../cache/index.js';
import type { FileSelector } from '../../workspace/index.js';
import { exportSet, type ExportSet, type LeadsMemo } from './export-set.js';
import { readExportSet, writeExportSet } from './export-set-store.js';

/** YAML read through git to decide what the builds read, at most, in one batch. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * What the builds of one engine remember of the files they read: what each blob leads to,
 * and, in the render cache, the answer for a commit and entry.
 */
export interface BuildReadsMemo {
  leads: LeadsMemo;
  store?: RenderCache | undefined;
}

export function buildReads(
  runner: ToolRunner,
  repoDir: string,
  entry: string,
  memo: BuildReadsMemo,
): FileSelector {
  return async (listing, sha) => {
    const key = exportSetKey(sha, entry);
    const stored = memo.store && (await readExportSet(memo.store, key, memo.leads));
    if (stored !== undefined) {
      if ('all' in stored) return listing;
      return listing.filter((f) => stored.paths.has(f.path));
    }
    const set = await computedSet(runner, { repoDir, entry, listing, leads: memo.leads });
    if (memo.store) await writeExportSet(memo.store, key, set, memo.leads);
    return 'all' in set ? listing : set.files;
  };
}

function exportSetKey(sha: string, entry: string): string {
  return renderCacheKey(['export-set/1', sha, entry]);
}

/**
 * Puts into `memo.leads` what the blobs of a commit rendered before lead to, without
 * exporting it: a render read back whole (whole-render.ts) still leaves the review's other
 * revision to export, and most of its blobs are the same.
 */
export async function recallLeads(memo: BuildReadsMemo, sha: string, entry: string): Promise<void> {
  if (memo.store) await readExportSet(memo.store, exportSetKey(sha, entry), memo.leads);
}

async function computedSet(
  runner: ToolRunner,
  of: { repoDir: string; entry: string; listing: TreeFile[]; leads: LeadsMemo },
): Promise<ExportSet> {
  const sizes = new Map(of.listing.map((f) => [f.oid, f.size ?? 0]));
  const size = (oid: string) => sizes.get(oid) ?? 0;
  const read = async (oids: readonly string[]): Promise<Map<string, string>> => {
    const texts = new Map<string, string>();
    for (const batch of batches(oids, size)) {
      const maxBytes = batch.reduce((n, oid) => n + size(oid), 0);
      const found = await readBlobs(runner, of.repoDir, batch, { maxBytes });
      found.forEach((text, oid) => texts.set(oid, text));
    }
    return texts;
  };
  try {
    return await exportSet(of.listing, of.entry, read, of.leads);
  } catch (err) {
    // Text git could not give back whole: every file is written, as Flux would have it.
    if (err instanceof UnreadableBlobsError) return { all: 'blob text unreadable' };
    throw err;
  }
}

/** Object ids in batches of at most MAX_BATCH_BYTES of content (a bigger blob alone). */
function batches(oids: readonly string[], size: (oid: string) => number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const oid of new Set(oids)) {
    if (current.length > 0 && bytes + size(oid) > MAX_BATCH_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(oid);
    bytes += size(oid);
  }
  if (current.length > 0) out.push(current);
  return out;
}
