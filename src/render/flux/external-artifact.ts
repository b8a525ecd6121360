/**
 * source-watcher's ArtifactGenerator (Flux 2.7+): each of its `spec.artifacts` is an
 * ExternalArtifact whose tree its copy operations build from the generator's sources, in
 * order, later copies overwriting earlier ones. Here that tree is built from the sources'
 * folders, so that a Kustomization whose sourceRef is the ExternalArtifact renders from it.
 * What source-watcher does that is not done here (the Extract strategy, `pathPattern`, a
 * pattern with braces or classes) leaves the artifact unbuilt, with the reason, rather than
 * built differently.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { z } from 'zod';
import { apiGroup, isRecord, objectMeta, type Manifest } from '../../model/index.js';
import { stringify } from 'yaml';
import { GoYamlError, parseGoYaml } from '../../yaml/index.js';
import { walkTree } from '../workspace/index.js';

const GENERATOR_GROUP = 'source.extensions.fluxcd.io';

/** Files one artifact may hold: a generator that copies more is not one fluxlens builds. */
const MAX_ARTIFACT_FILES = 20_000;

export function isArtifactGenerator(manifest: Manifest): boolean {
  const apiVersion = manifest['apiVersion'];
  return (
    manifest['kind'] === 'ArtifactGenerator' &&
    typeof apiVersion === 'string' &&
    apiGroup(apiVersion) === GENERATOR_GROUP
  );
}

const Copy = z.looseObject({
  from: z.string().min(1),
  to: z.string().min(1),
  exclude: z.array(z.string()).optional(),
  strategy: z.string().optional(),
});
type Copy = z.infer<typeof Copy>;

const Generator = z.looseObject({
  metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().optional() }),
  spec: z.looseObject({
    sources: z.array(
      z.looseObject({
        alias: z.string().min(1),
        kind: z.string().min(1),
        name: z.string().min(1),
        namespace: z.string().optional(),
      }),
    ),
    artifacts: z.array(z.looseObject({ name: z.string().min(1), copy: z.array(Copy) })),
  }),
});

/** Whether `generator` lists an artifact named `name`. */
export function generatesArtifact(generator: Manifest, name: string): boolean {
  const artifacts = isRecord(generator['spec']) ? generator['spec']['artifacts'] : undefined;
  return Array.isArray(artifacts) && artifacts.some((a) => isRecord(a) && a['name'] === name);
}

/** How one ExternalArtifact is generated: by which generator, from which sources, by which copies. */
export interface ArtifactPlan {
  /** `namespace/name` of the ArtifactGenerator. */
  generator: string;
  /** The sources its copies read, by alias. */
  sources: Map<string, { kind: string; namespace: string; name: string }>;
  copy: Copy[];
}

/**
 * The plan of ExternalArtifact `namespace/name` among `generators` (the ArtifactGenerators
 * of that namespace); undefined when none generates it; a reason when its generator is one
 * fluxlens cannot read; the generator whose `pathPattern` may name it, which is not expanded.
 */
export function artifactPlan(
  generators: readonly Manifest[],
  namespace: string,
  name: string,
): ArtifactPlan | { invalid: string } | { pathPattern: string } | undefined {
  for (const manifest of generators) {
    const meta = objectMeta(manifest);
    if ((meta.namespace ?? namespace) !== namespace) continue;
    if (!generatesArtifact(manifest, name)) continue;
    const parsed = Generator.safeParse(manifest);
    const generator = `${namespace}/${meta.name}`;
    if (!parsed.success) return { invalid: `ArtifactGenerator ${generator} is not valid` };
    const artifact = parsed.data.spec.artifacts.find((a) => a.name === name);
    const sources = new Map(
      parsed.data.spec.sources.map((s) => [
        s.alias,
        { kind: s.kind, namespace: s.namespace ?? namespace, name: s.name },
      ]),
    );
    return { generator, sources, copy: artifact?.copy ?? [] };
  }
  // Artifacts named from the folders a pattern finds: any name may be one of them.
  const discovering = generators.find((g) => isRecord(g['spec']) && g['spec']['pathPattern']);
  return discovering && { pathPattern: `${namespace}/${objectMeta(discovering).name}` };
}

/** `from: "@alias/pattern"`: the alias, and the pattern inside that source. */
export function copySource(copy: Copy): { alias: string; pattern: string } | undefined {
  const match = /^@([A-Za-z0-9_-]+)\/(.*)$/.exec(copy.from);
  return match ? { alias: match[1] ?? '', pattern: match[2] ?? '' } : undefined;
}

/**
 * Builds the artifact of `plan` into `dest` from the sources' folders (`roots`, by alias).
 * `unsupported`: source-watcher would build it, fluxlens does not; `error`: source-watcher
 * fails on it too (a copy that matches no file, a path that leaves the artifact).
 */
export async function buildArtifact(
  plan: ArtifactPlan,
  roots: ReadonlyMap<string, string>,
  dest: string,
): Promise<{ ok: true; origins: ArtifactOrigins } | { unsupported: string } | { error: string }> {
  await mkdir(dest, { recursive: true });
  const origins: ArtifactOrigins = new Map();
  let written = 0;
  for (const copy of plan.copy) {
    const strategy = copy.strategy ?? 'Overwrite';
    if (strategy !== 'Overwrite' && strategy !== 'Merge')
      return { unsupported: `copy strategy ${strategy}` };
    const from = copySource(copy);
    const root = from && roots.get(from.alias);
    if (!from || root === undefined) return { error: `copy from '${copy.from}' names no source` };
    if (!copy.to.startsWith('@artifact/'))
      return { error: `copy to '${copy.to}' does not start with @artifact/` };
    const pattern = globPattern(from.pattern);
    if ('unsupported' in pattern) return pattern;
    const excludes: Glob[] = [];
    for (const exclude of copy.exclude ?? []) {
      const glob = globPattern(exclude);
      if ('unsupported' in glob) return glob;
      excludes.push(glob);
    }
    const folder = !pattern.glob && (await isFolder(join(root, pattern.path)));
    const selected = folder ? { ...pattern, base: pattern.path, glob: true, folder } : pattern;
    const files = await matchingFiles(root, selected, excludes);
    if (files.length === 0) return { error: `copy from '${copy.from}' matches no file` };
    const to = copy.to.slice('@artifact/'.length);
    for (const file of files) {
      const target = targetPath(file, selected, to);
      if (target === undefined) return { error: `copy to '${copy.to}' leaves the artifact` };
      if (++written > MAX_ARTIFACT_FILES)
        return { unsupported: `more than ${MAX_ARTIFACT_FILES} files` };
      const placed = await place(join(root, file), join(dest, target), strategy);
      if (placed !== undefined) return { unsupported: placed };
      const origin = { alias: from.alias, file };
      const merged = strategy === 'Merge' ? (origins.get(target) ?? []) : [];
      origins.set(target, [...merged, origin]);
    }
  }
  return { ok: true, origins };
}

/**
 * Where each file of a built artifact came from: its path in the artifact, to the source
 * alias and path it was copied from (several where `Merge` merged them).
 */
export type ArtifactOrigins = Map<string, Array<{ alias: string; file: string }>>;

interface Glob {
  /** The pattern as a path in the source, without a leading `./` or `/`. */
  path: string;
  /** The folder before the first segment with a wildcard ('' for the root). */
  base: string;
  /** A folder named without a wildcard: copied whole, as `cp -r` copies one. */
  folder?: boolean;
  /** Whether the pattern has a wildcard: a file then keeps its path below `base`. */
  glob: boolean;
  regex: RegExp;
}

/**
 * `*` within one path segment, `**` across segments, `?` one character; braces and
 * character classes are left to source-watcher.
 */
function globPattern(pattern: string): Glob | { unsupported: string } {
  const clean = pattern.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  if (/[[\]{}]/.test(clean)) return { unsupported: `pattern '${pattern}'` };
  const segments = clean.split('/');
  const first = segments.findIndex((s) => /[*?]/.test(s));
  const glob = first >= 0;
  const base = (glob ? segments.slice(0, first) : segments.slice(0, -1)).join('/');
  let source = '';
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i] ?? '';
    if (c === '*' && clean[i + 1] === '*') {
      const slash = clean[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return { path: clean, base, glob, regex: new RegExp(`^${source}$`) };
}

/**
 * The source's files `pattern` selects (a folder: every file under it) but for those an
 * exclude pattern matches: by the path in the source or below the pattern's base, and by
 * file name for a pattern without a `/`.
 */
async function matchingFiles(root: string, pattern: Glob, excludes: Glob[]): Promise<string[]> {
  const entries = await walkTree(root);
  const selected = (path: string) =>
    pattern.folder ? path.startsWith(`${pattern.path}/`) : pattern.regex.test(path);
  const excluded = (path: string) => {
    const below = pattern.base === '' ? path : path.slice(pattern.base.length + 1);
    return excludes.some(
      (x) =>
        x.regex.test(path) ||
        x.regex.test(below) ||
        (!x.path.includes('/') && x.regex.test(posix.basename(path))),
    );
  };
  return entries
    .filter((e) => e.kind === 'file' && !e.path.split('/').includes('.git'))
    .map((e) => e.path)
    .filter((path) => selected(path) && !excluded(path))
    .sort();
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/**
 * Where a matched file lands, as `cp` puts it: by its path under the pattern's base for a
 * wildcard pattern, below the folder's own name for a folder copied into a folder (`to`
 * ending in `/`), by its name for a single file copied into a folder, at `to` itself when a
 * single file is copied to a file name.
 */
function targetPath(file: string, pattern: Glob, to: string): string | undefined {
  const { base, glob, folder } = pattern;
  const intoFolder = to.endsWith('/') || to === '';
  const below = base === '' ? file : file.slice(base.length + 1);
  const target = folder
    ? posix.join(to, intoFolder ? posix.basename(base) : '', below)
    : !glob && !intoFolder
      ? to
      : posix.join(to, glob ? below : posix.basename(file));
  const normal = posix.normalize(target);
  return normal.startsWith('../') || normal === '..' || posix.isAbsolute(normal)
    ? undefined
    : normal;
}

/**
 * Writes `from` at `to`: over whatever an earlier copy put there, or with Merge, a YAML
 * map merged into the one there as helm merges values files (maps key by key, anything
 * else replaced). What Merge cannot read as one YAML map each is returned, not guessed.
 */
async function place(
  from: string,
  to: string,
  strategy: 'Overwrite' | 'Merge',
): Promise<string | undefined> {
  await mkdir(dirname(to), { recursive: true });
  const content = await readFile(from);
  const existing =
    strategy === 'Merge' ? await readFile(to, 'utf8').catch(() => undefined) : undefined;
  if (existing === undefined) {
    await writeFile(to, content);
    return undefined;
  }
  const [base, over] = [oneMap(existing), oneMap(content.toString('utf8'))];
  if (base === undefined || over === undefined)
    return 'copy strategy Merge on a file that is not one YAML map';
  await writeFile(to, stringify(mergeMaps(base, over), { sortMapEntries: true }));
  return undefined;
}

function oneMap(text: string): Record<string, unknown> | undefined {
  try {
    const docs = [...parseGoYaml(text, { allDocuments: true })];
    const [doc] = docs;
    return docs.length === 1 && isRecord(doc) ? doc : undefined;
  } catch (err) {
    if (err instanceof GoYamlError) return undefined;
    throw err;
  }
}

function mergeMaps(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) ? mergeMaps(current, value) : value;
  }
  return out;
}
