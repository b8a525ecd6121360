/**
 * source-watcher's ArtifactGenerator (Flux 2.7+): each of its `spec.artifacts` is an
 * ExternalArtifact whose tree its copy operations build from the generator's sources, in
 * order, later copies overwriting earlier ones. Here that tree is built from the sources'
 * folders, so that a Kustomization whose sourceRef is the ExternalArtifact renders from it.
 * What source-watcher does that is not done here (a copy strategy other than Overwrite, such
 * as Merge or Extract; a pattern with braces or classes) leaves the artifact unbuilt, with
 * the reason, rather than built differently.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { z } from 'zod';
import { apiGroup, isRecord, objectMeta, type Manifest } from '../../model/index.js';
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
 * fluxlens cannot read.
 */
export function artifactPlan(
  generators: readonly Manifest[],
  namespace: string,
  name: string,
): ArtifactPlan | { invalid: string } | undefined {
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
  return undefined;
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
): Promise<{ ok: true } | { unsupported: string } | { error: string }> {
  await mkdir(dest, { recursive: true });
  let written = 0;
  for (const copy of plan.copy) {
    const strategy = copy.strategy ?? 'Overwrite';
    if (strategy !== 'Overwrite') return { unsupported: `copy strategy ${strategy}` };
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
    const files = await matchingFiles(root, pattern, excludes);
    if (files.length === 0) return { error: `copy from '${copy.from}' matches no file` };
    const to = copy.to.slice('@artifact/'.length);
    for (const file of files) {
      const target = targetPath(file, pattern.base, pattern.glob, to);
      if (target === undefined) return { error: `copy to '${copy.to}' leaves the artifact` };
      if (++written > MAX_ARTIFACT_FILES)
        return { unsupported: `more than ${MAX_ARTIFACT_FILES} files` };
      await place(join(root, file), join(dest, target));
    }
  }
  return { ok: true };
}

interface Glob {
  /** The folder before the first segment with a wildcard ('' for the root). */
  base: string;
  /** Whether the pattern has a wildcard: a file then keeps its path below `base`. */
  glob: boolean;
  regex: RegExp;
}

/**
 * `*` within one path segment, `**` across segments, `?` one character; braces and
 * character classes are left to source-watcher.
 */
function globPattern(pattern: string): Glob | { unsupported: string } {
  const clean = pattern.replace(/^\.?\/+/, '');
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
  return { base, glob, regex: new RegExp(`^${source}$`) };
}

async function matchingFiles(root: string, pattern: Glob, excludes: Glob[]): Promise<string[]> {
  const entries = await walkTree(root);
  return entries
    .filter((e) => e.kind === 'file' && !e.path.split('/').includes('.git'))
    .map((e) => e.path)
    .filter((path) => pattern.regex.test(path))
    .filter(
      (path) => !excludes.some((x) => x.regex.test(path) || x.regex.test(posix.basename(path))),
    )
    .sort();
}

/**
 * Where a matched file lands: below a folder `to` (ending in `/`) by its path under the
 * pattern's base for a wildcard pattern, by its name for a single file; at `to` itself when
 * a single file is copied to a file name.
 */
function targetPath(file: string, base: string, glob: boolean, to: string): string | undefined {
  const below = base === '' ? file : file.slice(base.length + 1);
  const target =
    !glob && !to.endsWith('/') && to !== ''
      ? to
      : posix.join(to, glob ? below : posix.basename(file));
  const normal = posix.normalize(target);
  return normal.startsWith('../') || normal === '..' || posix.isAbsolute(normal)
    ? undefined
    : normal;
}

/** Writes `from` at `to`, over whatever an earlier copy put there. */
async function place(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await writeFile(to, await readFile(from));
}
