/**
 * Images a registry said it holds, kept beside the chart cache so the next review (in this
 * process or the next) need not ask again:
 *
 *   <dir>/<key>.json   when the registry last said it holds the manifest
 *
 * key = sha256 of (registry, repository, reference). A digest names one manifest for
 * ever, so its answer never expires; a tag can be deleted or moved, so its answer holds
 * for TAG_TTL_MS. Only "present" is kept: a missing tag may be pushed any minute, and an
 * unreachable registry may be back the next.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { ImageQuery } from '../../model/index.js';
import { isDigest } from './manifest-exists.js';

export const TAG_TTL_MS = 60 * 60 * 1000;

const Entry = z.object({ presentAt: z.number() });

export class ImageAnswerCache {
  constructor(
    private readonly dir: string,
    private readonly now: () => number,
  ) {}

  /** Whether the registry said it holds this manifest, recently enough to believe it. */
  async present(query: ImageQuery): Promise<boolean> {
    let entry;
    try {
      entry = Entry.safeParse(JSON.parse(await readFile(this.file(query), 'utf8')));
    } catch {
      return false;
    }
    if (!entry.success) return false;
    return isDigest(query.reference) || this.now() - entry.data.presentAt < TAG_TTL_MS;
  }

  async remember(query: ImageQuery): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = this.file(query);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temp, JSON.stringify({ presentAt: this.now() }));
      await rename(temp, file);
    } finally {
      await rm(temp, { force: true });
    }
  }

  private file(query: ImageQuery): string {
    const key = createHash('sha256')
      .update(JSON.stringify([query.registry, query.path, query.reference]))
      .digest('hex');
    return join(this.dir, `${key}.json`);
  }
}
