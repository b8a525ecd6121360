/**
 * A digest of every file under a folder, names and contents, for a content key: what a
 * chart folder renders from. Read synchronously: a chart is many small files, which the
 * thread pool's round trips would make slower than the renders they save.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FolderDigestLimits {
  maxFiles: number;
  maxBytes: number;
}

/** Undefined past the limits: a folder too big to read for a key is rendered every time. */
export function folderDigest(dir: string, limits: FolderDigestLimits): string | undefined {
  const hash = createHash('sha256');
  let files = 0;
  let bytes = 0;
  const walk = (rel: string): boolean => {
    const entries = readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!walk(path)) return false;
      } else if (entry.isFile()) {
        const content = readFileSync(join(dir, path));
        files += 1;
        bytes += content.byteLength;
        if (files > limits.maxFiles || bytes > limits.maxBytes) return false;
        hash.update(`${path}\0${content.byteLength}\0`).update(content);
      } else if (entry.isSymbolicLink()) {
        // helm follows a link the digest cannot vouch for.
        return false;
      }
    }
    return true;
  };
  return walk('') ? hash.digest('hex') : undefined;
}
