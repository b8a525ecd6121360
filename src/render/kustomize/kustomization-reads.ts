/**
 * The files one Flux Kustomization's build reads, as kustomize reads them: the kustomization
 * at its path (or the files Flux's generator lists there), then every file its references
 * name, through folders and their own kustomization files. Unlike buildInputSet, which keys
 * a cache and so takes every file of a folder it visits, a file no reference names is not
 * read: changing it changes nothing the build gives.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { classify } from '../../errors.js';
import type { FluxKustomization } from '../flux/index.js';
import { MAX_YAML_FILE_BYTES, parseFileDocuments } from '../../yaml/index.js';
import { isRemote, referencedPaths } from './build.js';
import { findKustomizationFile, generateKustomization } from './generate.js';

const MAX_DEPTH = 64;

/**
 * Root-relative files the build of `path` inside `root` reads; a walk that cannot go on (a
 * file that does not parse, a path out of the root) stops there, as the build would fail.
 */
export async function kustomizationReads(
  root: string,
  path: string,
  ks: FluxKustomization,
): Promise<string[]> {
  const realRoot = await realpath(root);
  const read = new Set<string>();
  const seen = new Set<string>();
  const relOf = (p: string) => relative(realRoot, p).split(sep).join('/');
  const inside = (p: string) => p === realRoot || p.startsWith(realRoot + sep);

  /** The files `kus` names itself; folders are visited. */
  const follow = async (dir: string, kus: Record<string, unknown>, depth: number) => {
    const named: string[] = [];
    for (const ref of referencedPaths(kus)) {
      if (isRemote(ref.path) || isAbsolute(ref.path)) continue;
      const real = await realpath(resolve(dir, ref.path)).catch(() => undefined);
      if (real === undefined || !inside(real)) continue;
      if ((await stat(real)).isDirectory()) await visit(real, depth + 1);
      else named.push(relOf(real));
    }
    named.forEach((f) => read.add(f));
    return named;
  };

  const visit = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || seen.has(dir)) return;
    seen.add(dir);
    const name = await findKustomizationFile(dir);
    if (name === undefined) return;
    const file = join(dir, name);
    read.add(relOf(file));
    if ((await stat(file)).size > MAX_YAML_FILE_BYTES) return;
    const parsed = parseFileDocuments(await readFile(file, 'utf8'));
    if (parsed.error !== undefined) return;
    const kus = parsed.documents[0]?.manifest ?? {};
    const named = await follow(dir, kus, depth);
    if (await placeholdersOnly(realRoot, kus, dir))
      [relOf(file), ...named].forEach((f) => read.delete(f));
  };

  try {
    const start = await realpath(join(root, path));
    if (!inside(start)) return [];
    seen.add(start);
    const generated = await generateKustomization(start, path, ks);
    if (!generated.generated) read.add(relOf(join(start, generated.fileName)));
    await follow(start, generated.content, 0);
  } catch (err) {
    // The build fails for the same reason and says so; what was reached so far stands.
    if (classify(err) === 'cancelled') throw err;
  }
  return [...read].sort();
}

/**
 * Whether every resource of the kustomization `kus` in `dir` is a file without a document,
 * and nothing else makes objects (generators, components, charts).
 */
async function placeholdersOnly(
  root: string,
  kus: Record<string, unknown>,
  dir: string,
): Promise<boolean> {
  const list = (field: string): unknown[] => (Array.isArray(kus[field]) ? kus[field] : []);
  const makers = [
    'configMapGenerator',
    'secretGenerator',
    'generators',
    'components',
    'helmCharts',
  ];
  if (makers.some((field) => list(field).length > 0)) return false;
  const resources = [...list('resources'), ...list('bases')];
  if (resources.length === 0) return false;
  for (const resource of resources) {
    if (typeof resource !== 'string' || isRemote(resource) || isAbsolute(resource)) return false;
    const path = resolve(dir, resource);
    const info = await stat(path).catch(() => undefined);
    if (info === undefined || !info.isFile() || info.size > MAX_YAML_FILE_BYTES) return false;
    if (!path.startsWith(root + sep)) return false;
    const parsed = parseFileDocuments(await readFile(path, 'utf8'));
    if (parsed.error !== undefined || parsed.documents.length > 0) return false;
  }
  return true;
}
