/**
 * A build that would read a file whose content the repository lacks (a blobless or damaged
 * clone names a blob it does not hold): that producer fails, naming the file, and every
 * other producer renders. A missing file anywhere else is no one's business.
 */
import { existsSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { BuildInputSet } from '../kustomize/index.js';

/** What a build reads, as far as is known: its folder, and its inputs when they are known. */
export interface BuildReads {
  /** The source folder, a copy of the revision where lacking files are absent. */
  root: string;
  /** The build's folder, relative to the root. */
  path: string;
  /** The folder is read whole (Flux generates its kustomization from every file in it). */
  whole: boolean;
  inputs?: BuildInputSet | undefined;
}

/** The first lacking file the build reads (repository-relative), if any. */
export function lackingInput(lacking: ReadonlySet<string>, reads: BuildReads): string | undefined {
  if (lacking.size === 0) return undefined;
  const files = new Set(reads.inputs?.files.map(([path]) => path));
  const dirs = new Set(reads.inputs?.dirs);
  const whole = reads.whole || reads.inputs === undefined;
  for (const path of [...lacking].sort()) {
    // Present here: this source is not a copy of the revision (a folder mapped by the user).
    if (existsSync(join(reads.root, path))) continue;
    if (files.has(path) || dirs.has(posix.dirname(path))) return path;
    if (whole && isUnder(path, reads.path)) return path;
  }
  return undefined;
}

export function isUnder(path: string, dir: string): boolean {
  return dir === '.' || path.startsWith(`${dir}/`);
}

export function lackingMessage(path: string): string {
  return `the repository lacks the content of '${path}' (a blobless or damaged clone): fetch it to review this producer`;
}
