/**
 * The files a commit's builds read (see export-set.ts), kept in the render cache by commit
 * and entry: a commit's tree never changes. With the answer go the leads of the blobs it
 * read, so that the other revision of a review, most of whose blobs are the same, reads
 * and parses only the blobs that differ.
 */
import { z } from 'zod';
import type { RenderCache } from '../../cache/index.js';
import type { ExportSet, LeadsMemo } from './export-set.js';

const Leads = z.object({
  references: z.array(z.string()),
  folders: z.array(z.string()),
  relative: z.array(z.object({ from: z.string(), path: z.string() })),
  everyFile: z.string().optional(),
});

const Stored = z.object({
  paths: z.array(z.string()).optional(),
  all: z.string().optional(),
  leads: z.record(z.string(), Leads),
});

/** The stored answer (paths, or why every file), its leads put into `leads`. */
export async function readExportSet(
  store: RenderCache,
  key: string,
  leads: LeadsMemo,
): Promise<{ paths: ReadonlySet<string> } | { all: string } | undefined> {
  const parsed = await store.getParsed(key, Stored, 'never');
  if (parsed === undefined) return undefined;
  for (const [blob, found] of Object.entries(parsed.leads)) {
    const { everyFile, ...rest } = found;
    leads.set(blob, everyFile === undefined ? rest : { ...rest, everyFile });
  }
  if (parsed.all !== undefined) return { all: parsed.all };
  return parsed.paths ? { paths: new Set(parsed.paths) } : undefined;
}

export async function writeExportSet(
  store: RenderCache,
  key: string,
  set: ExportSet,
  leads: LeadsMemo,
): Promise<void> {
  const answer = 'all' in set ? { all: set.all } : { paths: set.files.map((f) => f.path) };
  await store.put(key, JSON.stringify({ ...answer, leads: Object.fromEntries(leads) }));
}
