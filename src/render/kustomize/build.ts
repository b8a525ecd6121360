/**
 * Runs `kustomize build` the way kustomize-controller does (no load restrictor, no
 * plugins), after checking that the build cannot read outside its source or fetch
 * remote bases unless allowed.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ToolRunner } from '../../tool-runner.js';
import { findKustomizationFile } from './generate.js';
import { parseDocuments } from '../yaml.js';
import { FluxlensError } from '../../errors.js';

export interface KustomizeOptions {
  allowRemoteBases: boolean;
  enableExecPlugins: boolean;
  timeoutMs: number;
  maxOutputBytes: number;
}

export async function kustomizeBuild(
  runner: ToolRunner,
  dir: string,
  options: KustomizeOptions,
): Promise<string> {
  const args = ['build', dir, '--load-restrictor', 'LoadRestrictionsNone'];
  if (options.enableExecPlugins) args.push('--enable-alpha-plugins', '--enable-exec');
  const { stdout } = await runner.run('kustomize', args, {
    timeoutMs: options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes,
  });
  return stdout;
}

export class UnsafePathError extends FluxlensError {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super('unsafe-path', message);
    this.name = 'UnsafePathError';
  }
}

const MAX_DEPTH = 64;

function isRemote(ref: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(ref) || /^(git@|github\.com[/:]|gh:|git::)/i.test(ref);
}

/** Every path-valued entry of a kustomization file that kustomize will read. */
function referencedPaths(kus: Record<string, unknown>): { path: string; dirOk: boolean }[] {
  const out: { path: string; dirOk: boolean }[] = [];
  const strings = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  for (const field of ['resources', 'bases', 'components']) {
    for (const p of strings(kus[field])) out.push({ path: p, dirOk: true });
  }
  for (const field of ['crds', 'configurations', 'generators', 'transformers', 'validators']) {
    for (const p of strings(kus[field])) out.push({ path: p, dirOk: field !== 'crds' });
  }
  for (const p of strings(kus['patchesStrategicMerge'])) {
    if (!p.includes('\n') && /\.(ya?ml|json)$/i.test(p.trim()))
      out.push({ path: p.trim(), dirOk: false });
  }
  for (const field of ['patches', 'patchesJson6902', 'replacements']) {
    const list = Array.isArray(kus[field]) ? (kus[field] as unknown[]) : [];
    for (const item of list) {
      const path =
        item && typeof item === 'object' ? (item as Record<string, unknown>)['path'] : undefined;
      if (typeof path === 'string') out.push({ path, dirOk: false });
    }
  }
  for (const field of ['configMapGenerator', 'secretGenerator']) {
    const list = Array.isArray(kus[field]) ? (kus[field] as unknown[]) : [];
    for (const item of list) {
      const gen = (item ?? {}) as Record<string, unknown>;
      const files = [...strings(gen['files']), ...strings(gen['envs'])];
      if (typeof gen['env'] === 'string') files.push(gen['env']);
      for (const f of files)
        out.push({ path: f.includes('=') ? f.slice(f.indexOf('=') + 1) : f, dirOk: false });
    }
  }
  return out;
}

/**
 * Walks the kustomization graph from `dir` and refuses any path that resolves (through
 * `..` or symlinks) outside `root`, and any remote base unless allowed. Returns nothing
 * on success; throws UnsafePathError naming the offending file.
 */
export async function checkKustomizationTree(
  root: string,
  dir: string,
  allowRemoteBases: boolean,
): Promise<void> {
  const realRoot = await realpath(root);
  const seen = new Set<string>();
  const visit = async (current: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH)
      throw new UnsafePathError('kustomization nesting is too deep', rel(realRoot, current));
    const realDir = await realpath(current);
    if (seen.has(realDir)) return;
    seen.add(realDir);
    const name = await findKustomizationFile(current);
    if (!name) return;
    const file = join(current, name);
    const parsed = parseDocuments(await readFile(file, 'utf8'));
    const kus = parsed.documents[0]?.manifest ?? {};
    for (const { path, dirOk } of referencedPaths(kus)) {
      if (isRemote(path)) {
        if (allowRemoteBases) continue;
        throw new UnsafePathError(
          `remote resource '${path}' is disabled (enable remote bases to allow it)`,
          rel(realRoot, file),
        );
      }
      if (isAbsolute(path))
        throw new UnsafePathError(`absolute path '${path}' is not allowed`, rel(realRoot, file));
      const target = join(current, path);
      if (!isInside(resolve(root), resolve(target))) {
        throw new UnsafePathError(`path '${path}' leaves the source root`, rel(realRoot, file));
      }
      const real = await realpath(target).catch(() => undefined);
      if (real === undefined) continue; // kustomize reports the missing file itself
      if (!isInside(realRoot, real)) {
        throw new UnsafePathError(`path '${path}' leaves the source root`, rel(realRoot, file));
      }
      if (dirOk && (await stat(real)).isDirectory()) await visit(target, depth + 1);
    }
  };
  await visit(dir, 0);
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

function rel(root: string, path: string): string {
  const r = relative(root, path);
  return r === '' ? '.' : r.split(sep).join('/');
}
