/**
 * `--source NAME=DIR` mappings for the flux-local engine: copies each folder into the
 * scratch workspace and builds flux-local's `--sources` argument. It must not hand
 * flux-local a folder outside the workspace, nor a value its comma/equals syntax misreads.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { isFluxKustomization } from '../flux/index.js';
import { sourceRefOf, type MappedSource, type Workspace } from './producers.js';
import type { Manifest } from '../../model/index.js';
import type { SourceMapping } from '../source-mapping.js';
import { copyTree, isDirectory } from '../workspace/index.js';
import { parseFileDocuments } from '../../yaml/index.js';

const MAX_SCAN_BYTES = 4 * 1024 * 1024;

/** Copies each `--source NAME=DIR` folder into the workspace, as the builtin engine does. */
export async function mapSources(
  mappings: readonly SourceMapping[],
  repoDir: string,
  workspace: string,
  maxFiles: number,
): Promise<MappedSource[]> {
  const repoReal = await realpath(resolve(repoDir));
  const out: MappedSource[] = [];
  for (const [i, m] of mappings.entries()) {
    const parts = m.key.split('/');
    // flux-local takes NAME or NAMESPACE/NAME; KIND/NAMESPACE/NAME loses its kind.
    const key = parts.length === 3 ? `${parts[1]}/${parts[2]}` : m.key;
    if (parts.length > 3 || parts.some((p) => p === '') || /[,=\s]/.test(key)) {
      throw new UsageError(`source mapping '${m.key}' cannot be passed to flux-local`);
    }
    const dir = resolve(m.dir);
    if (!(await isDirectory(dir)))
      throw new UsageError(`source '${m.key}': '${m.dir}' is not a folder`);
    if ((await realpath(dir)) === repoReal) {
      out.push({ key, root: undefined });
      continue;
    }
    const root = join(workspace, `source-${i}`);
    // Like a Flux artifact, without symlinks: flux-local would follow them anywhere.
    await copyTree(dir, root, { mode: 'copy', keep: () => true, limits: { maxFiles } });
    const real = await realpath(root);
    if (/[,=]/.test(real))
      throw new UsageError(`temporary folder '${real}' cannot be passed to flux-local`);
    out.push({ key, root: real });
  }
  return out;
}

/**
 * Once --sources is given, flux-local keeps only Kustomizations whose source is listed,
 * so every GitRepository the repository's Kustomizations name is listed too (without a
 * folder: flux-local then reads it from the repository, as it does without --sources).
 */
export async function sourcesArgs(ws: Workspace, maxFiles: number): Promise<string[]> {
  if (ws.mapped.length === 0) return [];
  const items = ws.mapped.map((m) => `${m.key}=${m.root ?? '.'}`);
  const mappedNames = new Set(ws.mapped.map((m) => m.key.split('/').pop()));
  const gitNames = new Set<string>();
  for (const manifest of await kustomizationsIn(ws.repoRoot, maxFiles)) {
    const ref = sourceRefOf(manifest);
    if (
      ref &&
      ref.kind === 'GitRepository' &&
      !mappedNames.has(ref.name) &&
      !/[,=/\s]/.test(ref.name)
    ) {
      gitNames.add(ref.name);
    }
  }
  return ['--sources', [...items, ...[...gitNames].sort()].join(',')];
}

/** Every Flux Kustomization written in the tree's YAML files (a quick text filter first). */
async function kustomizationsIn(root: string, maxFiles: number): Promise<Manifest[]> {
  const out: Manifest[] = [];
  let files = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory() && e.name !== '.git') await walk(path);
      else if (e.isFile() && /\.ya?ml$/.test(e.name) && ++files <= maxFiles) {
        if ((await stat(path)).size > MAX_SCAN_BYTES) continue;
        const text = await readFile(path, 'utf8');
        if (!text.includes('kustomize.toolkit.fluxcd.io')) continue;
        for (const { manifest } of parseFileDocuments(text).documents)
          if (isFluxKustomization(manifest)) out.push(manifest);
      }
    }
  };
  await walk(root);
  return out;
}
