/**
 * Runs `kustomize build` the way kustomize-controller does (no load restrictor, no
 * plugins), after checking that the build cannot read outside its source or fetch
 * remote bases unless allowed.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ToolRunner } from '../../tool-runner.js';
import { kustomizeBuildArgs, type KustomizeRunOptions } from './build-args.js';
import { findKustomizationFile } from './generate.js';
import type { KustomizeServer } from './kustomize-server.js';
import {
  MAX_YAML_FILE_BYTES,
  parseDocuments,
  TOO_BIG,
  TOO_MANY_NODES,
  tooManyNodes,
  yamlOverLimit,
} from '../../yaml/index.js';
import { FluxlensError } from '../../errors.js';
import { isInside } from '../../model/index.js';

export interface KustomizeOptions extends KustomizeRunOptions {
  /** The render's kustomize-server: one process for all its builds instead of one each. */
  server?: KustomizeServer | undefined;
}

export async function kustomizeBuild(
  runner: ToolRunner,
  dir: string,
  options: KustomizeOptions,
): Promise<string> {
  if (options.server) return options.server.build(dir, options);
  const args = kustomizeBuildArgs(dir, options.enableExecPlugins);
  const { stdout } = await runner.run('kustomize', args, {
    timeoutMs: options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes,
  });
  return stdout;
}

/**
 * A tree kustomize must not build, naming the file that says why: a path that leaves the
 * source, a remote base, or (`limit-exceeded`) a file larger or YAML deeper, wider or more
 * aliased than fluxlens's bounds, which kustomize would spend minutes and gigabytes on.
 */
export class UnsafePathError extends FluxlensError {
  constructor(
    message: string,
    readonly file: string,
    code: 'unsafe-path' | 'limit-exceeded' | 'remote-base-refused' = 'unsafe-path',
  ) {
    super(code, message);
    this.name = 'UnsafePathError';
  }
}

const MAX_DEPTH = 64;

export function isRemote(ref: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(ref) || /^(git@|github\.com[/:]|gh:|git::)/i.test(ref);
}

/** A path kustomize reads: `dirOk` when it may be a folder, `yaml` when it parses it as YAML. */
interface Reference {
  path: string;
  dirOk: boolean;
  yaml?: false;
}

/** Every path-valued entry of a kustomization file that kustomize will read. */
export function referencedPaths(kus: Record<string, unknown>): Reference[] {
  const out: Reference[] = [];
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
      for (const f of files) {
        const path = f.includes('=') ? f.slice(f.indexOf('=') + 1) : f;
        out.push({ path, dirOk: false, yaml: false });
      }
    }
  }
  return out;
}

/** Patches written inline in a kustomization file, which kustomize parses as YAML too. */
function inlinePatches(kus: Record<string, unknown>): string[] {
  const out: string[] = [];
  const list = (field: string): unknown[] => (Array.isArray(kus[field]) ? kus[field] : []);
  for (const p of list('patchesStrategicMerge'))
    if (typeof p === 'string' && p.includes('\n')) out.push(p);
  for (const item of [...list('patches'), ...list('patchesJson6902')]) {
    const patch =
      item && typeof item === 'object' ? (item as Record<string, unknown>)['patch'] : undefined;
    if (typeof patch === 'string') out.push(patch);
  }
  return out;
}

/** Refuses YAML past fluxlens's bounds before kustomize reads it. */
function checkYaml(text: string, file: string): void {
  checkNodes(text, file);
  const problem = yamlOverLimit(text);
  if (problem !== undefined) throw overLimit(file, problem);
}

/** Counting nodes only lexes: it runs before anything that parses. */
function checkNodes(text: string, file: string): void {
  const many = tooManyNodes(text);
  if (many !== undefined) throw overLimit(file, `${TOO_MANY_NODES} at line ${many.line}`);
}

/** Refuses a file larger than fluxlens reads, unread. */
async function checkSize(path: string, file: string): Promise<void> {
  if ((await stat(path)).size > MAX_YAML_FILE_BYTES) throw overLimit(file, TOO_BIG);
}

async function readYaml(path: string, file: string): Promise<string> {
  await checkSize(path, file);
  return readFile(path, 'utf8');
}

function overLimit(file: string, problem: string): UnsafePathError {
  return new UnsafePathError(`${file}: ${problem}`, file, 'limit-exceeded');
}

/**
 * A folder without a kustomization file: Flux, and flux-local, build one that lists every
 * YAML file under it, so each is checked (symlinks are left to the path checks).
 */
async function checkFolderYaml(dir: string, realRoot: string, depth: number): Promise<void> {
  if (depth > MAX_DEPTH) return;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await checkFolderYaml(path, realRoot, depth + 1);
    else if (entry.isFile() && /\.ya?ml$/.test(entry.name))
      checkYaml(await readYaml(path, rel(realRoot, path)), rel(realRoot, path));
  }
}

/**
 * Walks the kustomization graph from `dir` and refuses any path that resolves (through
 * `..` or symlinks) outside `root`, any remote base unless allowed, and any YAML file or
 * inline patch past the bounds of src/yaml/. Returns nothing on success; throws
 * UnsafePathError naming the offending file.
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
    if (!name) return checkFolderYaml(current, realRoot, depth);
    const file = join(current, name);
    const text = await readYaml(file, rel(realRoot, file));
    checkNodes(text, rel(realRoot, file));
    const parsed = parseDocuments(text);
    if (parsed.overLimit) throw overLimit(rel(realRoot, file), parsed.error ?? '');
    const kus = parsed.documents[0]?.manifest ?? {};
    for (const patch of inlinePatches(kus)) checkYaml(patch, rel(realRoot, file));
    for (const { path, dirOk, yaml } of referencedPaths(kus)) {
      if (isRemote(path)) {
        if (allowRemoteBases) continue;
        throw new UnsafePathError(
          `remote resource '${path}' is disabled (enable remote bases to allow it)`,
          rel(realRoot, file),
          'remote-base-refused',
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
      const isDir = (await stat(real)).isDirectory();
      if (dirOk && isDir) await visit(target, depth + 1);
      else if (!isDir && yaml !== false)
        checkYaml(await readYaml(real, rel(realRoot, real)), rel(realRoot, real));
      // Generator files are no YAML, but kustomize reads them whole into a ConfigMap or Secret.
      else if (!isDir) await checkSize(real, rel(realRoot, real));
    }
  };
  await visit(dir, 0);
}

function rel(root: string, path: string): string {
  const r = relative(root, path);
  return r === '' ? '.' : r.split(sep).join('/');
}
