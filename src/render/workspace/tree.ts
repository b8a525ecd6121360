/**
 * Scratch copies of source trees. The renderer never writes into a repository: it
 * copies it once, then gives every build its own hard-linked copy of that (of only the
 * files the build reads, where those are known), in which it replaces files by
 * unlinking them first so the shared inodes stay untouched.
 */
import {
  copyFile,
  link,
  lstat,
  mkdir,
  readdir,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join, posix } from 'node:path';
import { FluxlensError } from '../../errors.js';
import { mapLimit } from './map-limit.js';

/** File copies or links in flight at once, within one folder. */
const FILES_IN_FLIGHT = 8;

export type TreeFilter = (relPath: string, isDir: boolean) => boolean;

export interface TreeLimits {
  maxFiles: number;
}

export class TreeLimitError extends FluxlensError {
  constructor(message: string) {
    super('limit-exceeded', message);
    this.name = 'TreeLimitError';
  }
}

/**
 * Copies `src` to `dest`. Files are hard-linked when `mode` is 'link' and copied
 * otherwise; `.git` is never copied. With `keep`, the copy is a Flux artifact: only the
 * kept files and folders, every folder still searched (a kept file inside a dropped
 * folder brings its folder along), and no symlinks, which source-controller leaves out.
 * Without `keep`, symlinks are recreated verbatim.
 */
export async function copyTree(
  src: string,
  dest: string,
  options: { mode: 'link' | 'copy'; keep?: TreeFilter; limits?: TreeLimits },
): Promise<void> {
  let files = 0;
  const ensureDir = dirMaker(dest);
  const copyOne = async (entry: Dirent, childRel: string): Promise<void> => {
    const from = join(src, childRel);
    const to = join(dest, childRel);
    if (entry.isSymbolicLink()) await symlink(await readlink(from), to);
    else if (entry.isFile()) {
      if (options.mode === 'link') await link(from, to);
      else await copyFile(from, to);
    }
  };
  const walk = async (rel: string): Promise<void> => {
    if (!options.keep || rel === '' || options.keep(rel, true)) await ensureDir(rel);
    const entries = await readdir(join(src, rel), { withFileTypes: true });
    const batch: Array<[Dirent, string]> = [];
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        await walk(childRel);
        continue;
      }
      if (options.keep && (entry.isSymbolicLink() || !options.keep(childRel, false))) continue;
      if (options.limits && ++files > options.limits.maxFiles) {
        throw new TreeLimitError(`source has more than ${options.limits.maxFiles} files`);
      }
      batch.push([entry, childRel]);
    }
    if (batch.length === 0) return;
    await ensureDir(rel);
    // A folder's files at once: each is one small system call the thread pool runs.
    await mapLimit(batch, FILES_IN_FLIGHT, ([entry, childRel]) => copyOne(entry, childRel));
  };
  await walk('');
}

/** One entry of a tree, by its path relative to the tree ('/'-separated). */
export interface TreeEntry {
  path: string;
  kind: 'file' | 'dir' | 'link' | 'other';
}

/** Folders read at once while walking a tree: each is a round trip to the thread pool. */
const DIRS_IN_FLIGHT = 16;

/**
 * Every entry below `root`, symlinks not followed and `.git` listed but not entered, in
 * no particular order: folders are read concurrently, where a walk one folder at a time
 * waits for each in turn.
 */
export async function walkTree(root: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  let level = [''];
  while (level.length > 0) {
    const next: string[] = [];
    await mapLimit(level, DIRS_IN_FLIGHT, async (rel) => {
      for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        const kind = entry.isSymbolicLink()
          ? 'link'
          : entry.isDirectory()
            ? 'dir'
            : entry.isFile()
              ? 'file'
              : 'other';
        out.push({ path, kind });
        if (kind === 'dir' && entry.name !== '.git') next.push(path);
      }
    });
    level = next;
  }
  return out;
}

/**
 * walkTree for trees nothing writes into while it is used (the renderer's own copies): each
 * folder is walked once, however many ask.
 */
export function walkOnce(): (root: string) => Promise<TreeEntry[]> {
  const walks = new Map<string, Promise<TreeEntry[]>>();
  return (root) => {
    let walk = walks.get(root);
    if (walk === undefined) {
      walk = walkTree(root);
      walks.set(root, walk);
    }
    return walk;
  };
}

/**
 * Whether copyTree with `keep` would copy the tree of `entries` whole: no symlink, no
 * `.git`, nothing but files and folders, and none the filter drops. Then the tree itself
 * can serve where its artifact is asked for, without a copy.
 */
export function keepsWholeTree(entries: readonly TreeEntry[], keep: TreeFilter): boolean {
  return entries.every(
    (e) =>
      (e.kind === 'file' || e.kind === 'dir') &&
      posix.basename(e.path) !== '.git' &&
      keep(e.path, e.kind === 'dir'),
  );
}

/**
 * Hard-links the listed files of `src` (paths relative to it, '/'-separated) into `dest`,
 * with the listed folders and every folder a file needs: one build's private copy of
 * only what it reads.
 */
export async function linkPaths(
  src: string,
  dest: string,
  paths: { files: readonly string[]; dirs: readonly string[] },
): Promise<void> {
  const ensureDir = dirMaker(dest);
  await ensureDir('');
  for (const dir of paths.dirs) await ensureDir(dir === '.' ? '' : dir);
  for (const file of paths.files) {
    await ensureDir(parentOf(file));
    await link(join(src, file), join(dest, file));
  }
}

/**
 * Makes folders below `dest`, one level at a time: a copy whose workspace is removed under
 * it (its render was cancelled) fails at its next folder instead of making the workspace
 * again.
 */
function dirMaker(dest: string): (rel: string) => Promise<void> {
  const made = new Set<string>();
  const ensureDir = async (rel: string): Promise<void> => {
    if (made.has(rel)) return;
    if (rel === '') await mkdir(dest, { recursive: true });
    else {
      await ensureDir(parentOf(rel));
      await mkdir(join(dest, rel)).catch(unlessExists);
    }
    made.add(rel);
  };
  return ensureDir;
}

function parentOf(rel: string): string {
  const parent = posix.dirname(rel);
  return parent === '.' ? '' : parent;
}

function unlessExists(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
}

/** Replaces a file in a hard-linked copy without touching the file it shares an inode with. */
export async function replaceFile(path: string, content: string): Promise<void> {
  await rm(path, { force: true });
  await writeFile(path, content);
}

export async function isDirectory(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isDirectory() ?? false;
}
