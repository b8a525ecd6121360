/**
 * Which files of a revision the builtin engine's builds can read, worked out from git's
 * objects before anything is written: the entry folder, the folder of every Flux
 * Kustomization found there or in what it reaches (spec.path, spec.components), what
 * kustomization files reference (recursively), the chart folders and values files of
 * charts in the repository, and every .sourceignore. Folders are taken whole (Flux's
 * generator reads a folder whole). Where a path depends on what only rendering can tell (a
 * variable in it, a patch that moves a Kustomization), the answer is every file.
 */
import { posix } from 'node:path';
import type { TreeFile } from '../../../git/index.js';
import { KUSTOMIZATION_FILE_NAMES, normalizeFluxPath } from '../../flux/index.js';
import { blobLeads, EveryFile, type BlobLeads } from './blob-leads.js';
import { isRemote } from '../../kustomize/index.js';

export type ExportSet = { files: TreeFile[] } | { all: string };

/** Reads the text of the given blobs (those the repository holds). */
export type BlobReader = (oids: readonly string[]) => Promise<Map<string, string>>;

/**
 * What each blob leads to, by object id and kind of file; shared by the renders of one
 * engine, which mostly read the same blobs (the two revisions of a review).
 */
export type LeadsMemo = Map<string, BlobLeads>;

/** Bytes of YAML read to decide; past it, every file is written instead. */
const MAX_SCAN_BYTES = 64 * 1024 * 1024;

export async function exportSet(
  listing: readonly TreeFile[],
  entry: string,
  read: BlobReader,
  memo: LeadsMemo = new Map(),
): Promise<ExportSet> {
  const scan = new Scan(new TreeIndex(listing), read, memo);
  try {
    await scan.run(normalizeFluxPath(entry));
  } catch (err) {
    if (err instanceof EveryFile) return { all: err.message };
    throw err;
  }
  return { files: scan.files() };
}

/** The listing by path and by folder. */
class TreeIndex {
  readonly byPath = new Map<string, TreeFile>();
  readonly #files = new Map<string, TreeFile[]>();
  readonly #subdirs = new Map<string, string[]>([['.', []]]);

  constructor(readonly listing: readonly TreeFile[]) {
    for (const file of listing) {
      this.byPath.set(file.path, file);
      const dir = posix.dirname(file.path);
      this.#files.set(dir, [...(this.#files.get(dir) ?? []), file]);
      this.addDir(dir);
    }
  }

  /** A folder, and every folder above it, each listed in its parent. */
  private addDir(dir: string): void {
    if (this.#subdirs.has(dir)) return;
    const parent = posix.dirname(dir);
    this.addDir(parent);
    this.#subdirs.set(dir, []);
    this.#subdirs.get(parent)?.push(dir);
  }

  isDir(path: string): boolean {
    return this.#subdirs.has(path);
  }

  under(dir: string): TreeFile[] {
    const out = [...(this.#files.get(dir) ?? [])];
    for (const sub of this.#subdirs.get(dir) ?? []) out.push(...this.under(sub));
    return out;
  }
}

class Scan {
  readonly #subtrees = new Set<string>();
  readonly #files = new Set<string>();
  readonly #scanned = new Set<string>();
  #queue: TreeFile[] = [];
  #bytes = 0;

  constructor(
    private readonly tree: TreeIndex,
    private readonly read: BlobReader,
    private readonly memo: LeadsMemo,
  ) {}

  async run(entry: string): Promise<void> {
    this.addSubtree(entry);
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      const unread = batch.filter((f) => !this.memo.has(memoKey(f)));
      this.#bytes += unread.reduce((n, f) => n + (f.size ?? 0), 0);
      if (this.#bytes > MAX_SCAN_BYTES) throw new EveryFile('too much YAML to read first');
      const texts = await this.read(unread.map((f) => f.oid));
      for (const file of unread) {
        const text = texts.get(file.oid);
        if (text !== undefined)
          this.memo.set(memoKey(file), blobLeads(text, isKustomization(file)));
      }
      for (const file of batch) {
        const leads = this.memo.get(memoKey(file));
        if (leads) this.follow(posix.dirname(file.path), leads);
      }
    }
  }

  files(): TreeFile[] {
    const inSubtree = (path: string): boolean => {
      for (let dir = posix.dirname(path); ; dir = posix.dirname(dir)) {
        if (this.#subtrees.has(dir)) return true;
        if (dir === '.') return false;
      }
    };
    return this.tree.listing.filter(
      (f) =>
        this.#files.has(f.path) || inSubtree(f.path) || posix.basename(f.path) === '.sourceignore',
    );
  }

  private follow(dir: string, leads: BlobLeads): void {
    if (leads.everyFile !== undefined) throw new EveryFile(leads.everyFile);
    for (const path of leads.references) this.addReference(dir, path);
    for (const folder of leads.folders) this.addSubtree(folder);
    for (const { from, path } of leads.relative) this.addReference(from, path);
  }

  /** A folder taken whole; its YAML is read for what it leads to. */
  private addSubtree(dir: string): void {
    if (dir === '.') throw new EveryFile('a build reads the whole repository');
    if (this.#subtrees.has(dir)) return;
    this.#subtrees.add(dir);
    for (const file of this.tree.under(dir)) this.enqueue(file);
  }

  /** A path relative to `dir`: a folder taken whole, a file by itself, nothing if absent. */
  private addReference(dir: string, reference: string): void {
    if (isRemote(reference)) return;
    if (posix.isAbsolute(reference)) throw new EveryFile(`'${reference}' is an absolute path`);
    // `components/volsync/` names the folder: normalize keeps the trailing slash.
    const path = posix.normalize(posix.join(dir, reference)).replace(/(.)\/+$/, '$1');
    if (path === '..' || path.startsWith('../'))
      throw new EveryFile(`'${path}' leaves the repository`);
    if (this.tree.isDir(path)) return this.addSubtree(path);
    const file = this.tree.byPath.get(path);
    if (!file) return;
    this.#files.add(path);
    this.enqueue(file);
  }

  private enqueue(file: TreeFile): void {
    if (this.#scanned.has(file.path) || file.lacking || file.mode === '160000') return;
    this.#scanned.add(file.path);
    if (isKustomization(file) || /\.(ya?ml|json)$/i.test(file.path)) this.#queue.push(file);
  }
}

function isKustomization(file: TreeFile): boolean {
  return (KUSTOMIZATION_FILE_NAMES as readonly string[]).includes(posix.basename(file.path));
}

/** A blob leads elsewhere as a kustomization file or as a manifest. */
function memoKey(file: TreeFile): string {
  return `${isKustomization(file) ? 'k' : 'm'}:${file.oid}`;
}
