/**
 * Everything one `kustomize build` can read, for a cache key: the kustomization it is
 * given (written by Flux's generator, so in memory) and, following the same references
 * the safety walk follows (resources, components, patches, generator files...), every
 * file under the source root they reach, each with a digest of its content. A referenced
 * path that does not exist is part of the answer too: creating it changes the build.
 * Anything the build could read from elsewhere (a remote base, a path out of the root)
 * gives no answer, and the build is not cached.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseFileDocuments } from '../../yaml/index.js';
import { findKustomizationFile } from './generate.js';
import { isRemote, referencedPaths } from './build.js';

/** Digests of files already read, by real path; one per render, while its sources stand still. */
export type DigestMemo = Map<string, string>;

const MAX_DEPTH = 64;

class NotCacheable extends Error {}

/** What one build reads: its files with their digests, and the folders it visits. */
export interface BuildInputSet {
  /** `[path relative to the root, digest or 'missing']`, sorted. */
  files: Array<[string, string]>;
  /** Folders the build looks into, relative to the root ('.' for the root), sorted. */
  dirs: string[];
  /** Whether every path reached is its own real path: no symlink on the way. */
  direct: boolean;
}

/**
 * The files and folders the build of `dir` can read, or undefined when it could read
 * something outside them. `memo` null: no digests are made (each file reads as '').
 */
export async function buildInputSet(
  root: string,
  dir: string,
  top: Record<string, unknown>,
  memo: DigestMemo | null = new Map(),
): Promise<BuildInputSet | undefined> {
  // Synchronous reads: a walk is hundreds of small reads, which the thread pool's round
  // trips would make slower than the builds they save.
  const realRoot = realpathSync(root);
  const inputs = new Map<string, string>();
  const seen = new Set<string>();
  let direct = true;
  const relOf = (path: string) => relative(realRoot, path).split(sep).join('/') || '.';
  const inside = (path: string) => path === realRoot || path.startsWith(realRoot + sep);

  const addFile = (real: string): void => {
    let digest = memo === null ? '' : memo.get(real);
    if (digest === undefined) {
      digest = createHash('sha256').update(readFileSync(real)).digest('hex');
      memo?.set(real, digest);
    }
    inputs.set(relOf(real), digest);
  };

  const follow = async (current: string, kus: Record<string, unknown>, depth: number) => {
    // An OpenAPI schema file is read from anywhere, and no reference walk follows it.
    if (kus['openapi'] !== undefined) throw new NotCacheable();
    for (const { path, dirOk } of referencedPaths(kus)) {
      if (isRemote(path) || isAbsolute(path)) throw new NotCacheable();
      const target = resolve(current, path);
      const real = realOrUndefined(target);
      if (real === undefined) {
        if (!inside(target)) throw new NotCacheable();
        inputs.set(relOf(target), 'missing');
        continue;
      }
      if (!inside(real)) throw new NotCacheable();
      if (real !== target) direct = false;
      if (statSync(real).isDirectory()) {
        if (!dirOk) throw new NotCacheable();
        await visitDir(real, depth + 1);
      } else {
        addFile(real);
      }
    }
  };

  const visitDir = async (real: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) throw new NotCacheable();
    if (seen.has(real)) return;
    seen.add(real);
    addFolderFiles(real);
    const name = await findKustomizationFile(real);
    if (!name) return;
    const parsed = parseFileDocuments(readFileSync(join(real, name), 'utf8'));
    if (parsed.error !== undefined) throw new NotCacheable();
    await follow(real, parsed.documents[0]?.manifest ?? {}, depth);
  };

  /** The folder's own files: whatever kustomize reads there is among them. */
  const addFolderFiles = (real: string): void => {
    for (const entry of readdirSync(real, { withFileTypes: true })) {
      if (entry.isFile()) addFile(join(real, entry.name));
      else if (entry.isSymbolicLink()) direct = false;
    }
  };

  try {
    const start = realpathSync(dir);
    if (!inside(start)) return undefined;
    if (relOf(start) !== (relative(resolve(root), resolve(dir)).split(sep).join('/') || '.'))
      direct = false;
    seen.add(start);
    addFolderFiles(start);
    await follow(start, top, 0);
  } catch (err) {
    if (err instanceof NotCacheable) return undefined;
    throw err;
  }
  const sorted = <T>(list: T[], by: (t: T) => string) =>
    list.sort((a, b) => (by(a) < by(b) ? -1 : by(a) > by(b) ? 1 : 0));
  return {
    files: sorted([...inputs], ([path]) => path),
    dirs: sorted([...seen].map(relOf), (d) => d),
    direct,
  };
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
