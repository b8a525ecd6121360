/**
 * Resolves a Kustomization's sourceRef to a folder: the reviewed repository for its own
 * GitRepository, a user mapping (`--source NAME=DIR`) for others, or nothing (a skipped
 * producer) for remote sources nobody mapped. Each source is copied once into the
 * workspace with its ignore rules applied, as source-controller packs an artifact.
 */
import { realpath } from 'node:fs/promises';
import { join, posix, resolve, sep } from 'node:path';
import type { IgnoreRule, Manifest } from '../../model/index.js';
import type { SourceMapping } from '../source-mapping.js';
import { artifactPlan, buildArtifact, copySource } from './external-artifact.js';
import { SourceIgnore } from './source-ignore.js';
import { copyTree, keepsWholeTree, type TreeEntry } from '../workspace/index.js';

export interface SourceRef {
  kind: string;
  name: string;
  namespace: string;
}

export type SourceResolution =
  | {
      kind: 'found';
      id: string;
      root: string;
      isRepository: boolean;
      /** The source's spec.ignore: rules its artifact leaves files out by, besides .sourceignore. */
      ignore?: string | undefined;
      /**
       * For an artifact built from this repository's files (an ExternalArtifact): the
       * repository files one of its files was copied from, by its path in the artifact.
       */
      repositoryFiles?: (path: string) => string[];
    }
  | { kind: 'skipped'; id: string; reason: string }
  /** Flux would fail on it too: an ExternalArtifact whose generator cannot build it. */
  | { kind: 'failed'; id: string; error: string };

/** Compares git URLs the way people write them: scheme, user, `.git` and case aside. */
export function normalizeGitUrl(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^[a-z+]+:\/\//, '')
    .replace(/^[^@/]+@/, '')
    .replace(/^([^/:]+):(?!\d+\/)/, '$1/')
    .replace(/:\d+\//, '/')
    .replace(/\.git\/?$/, '')
    .replace(/\/+$/, '');
}

/** ExternalArtifacts built from ExternalArtifacts, at most this deep. */
const MAX_ARTIFACT_DEPTH = 4;

export class Sources {
  readonly #copies = new Map<string, Promise<string>>();
  /** The rules of each artifact of the reviewed repository made so far, by copy. */
  readonly #repositoryRules = new Map<string, IgnoreRule[]>();
  /** Each artifact is built once per render, by its copies and the folders they read. */
  readonly #artifacts = new Map<
    string,
    { root: string; built: ReturnType<typeof buildArtifact> }
  >();

  constructor(
    private readonly workspace: string,
    private readonly repositoryRoot: string,
    private readonly repositoryUrl: string | undefined,
    private readonly mappings: readonly SourceMapping[],
    private readonly lookup: (
      kind: string,
      namespace: string,
      name: string,
    ) => Manifest | undefined,
    /** Lists a source folder (walkOnce: discovery may have listed the repository already). */
    private readonly walk: (root: string) => Promise<TreeEntry[]>,
    /** The ArtifactGenerators of a namespace, rendered or written in files. */
    private readonly generators: (namespace: string) => Manifest[] = () => [],
  ) {}

  async resolve(ref: SourceRef, depth = 0): Promise<SourceResolution> {
    const id = `${ref.kind}/${ref.namespace}/${ref.name}`;
    const object = this.lookup(ref.kind, ref.namespace, ref.name);
    const ignore = sourceIgnoreSpec(object);
    const mapped = this.mappings.find(
      (m) => m.key === ref.name || m.key === `${ref.namespace}/${ref.name}` || m.key === id,
    );
    if (mapped) {
      const dir = resolve(mapped.dir);
      const isRepository =
        (await realpath(dir).catch(() => dir)) === (await realpath(this.repositoryRoot));
      const root = await this.copy(dir, ignore, 'copy', isRepository ? id : undefined);
      return { kind: 'found', id, root, isRepository, ignore };
    }
    if (ref.kind === 'GitRepository' && this.isOwnRepository(ref, object)) {
      return {
        kind: 'found',
        id,
        root: await this.copy(this.repositoryRoot, ignore, 'link', id),
        isRepository: true,
        ignore,
      };
    }
    if (ref.kind === 'ExternalArtifact' && !object) return this.generated(ref, id, depth);
    const reason = object
      ? `source ${id} is not this repository and is not mapped (use --source ${ref.name}=DIR)`
      : `source ${id} was not found`;
    return { kind: 'skipped', id, reason };
  }

  /**
   * The ignore rules of every artifact of the reviewed repository made so far, or, when none
   * was, of the repository as discovery reads it (no spec.ignore).
   */
  async repositoryRules(): Promise<IgnoreRule[][]> {
    await Promise.allSettled(this.#copies.values());
    if (this.#repositoryRules.size > 0) return [...this.#repositoryRules.values()];
    const root = this.repositoryRoot;
    return [(await SourceIgnore.load(root, undefined, await this.walk(root))).rules()];
  }

  /**
   * An ExternalArtifact as its ArtifactGenerator builds it, from the generator's sources
   * where each is this repository or mapped; otherwise the artifact is not built, and the
   * reason names the generator and the sources outside the repository.
   */
  private async generated(ref: SourceRef, id: string, depth: number): Promise<SourceResolution> {
    const plan = artifactPlan(this.generators(ref.namespace), ref.namespace, ref.name);
    if (plan === undefined) {
      const reason = `source ${id} was not found: no ArtifactGenerator of the rendered cluster generates it`;
      return { kind: 'skipped', id, reason };
    }
    if ('invalid' in plan) return { kind: 'failed', id, error: plan.invalid };
    if ('pathPattern' in plan) {
      const reason = `ExternalArtifact ${ref.namespace}/${ref.name} from ArtifactGenerator ${plan.pathPattern} uses pathPattern, which fluxlens does not build`;
      return { kind: 'skipped', id, reason };
    }
    const from = `ExternalArtifact ${ref.namespace}/${ref.name} from ArtifactGenerator ${plan.generator}`;
    // An artifact generated from another artifact: bounded, as a generator may name its own.
    if (depth > MAX_ARTIFACT_DEPTH)
      return { kind: 'skipped', id, reason: `${from}: artifacts nest too deep` };
    const roots = new Map<string, string>();
    const fromRepository = new Map<string, (file: string) => string[]>();
    const outside: string[] = [];
    for (const copy of plan.copy) {
      const alias = copySource(copy)?.alias;
      const source = alias === undefined ? undefined : plan.sources.get(alias);
      if (alias === undefined || source === undefined || roots.has(alias)) continue;
      const resolved = await this.resolve(source, depth + 1);
      if (resolved.kind !== 'found') {
        outside.push(resolved.id);
        continue;
      }
      roots.set(alias, resolved.root);
      const files = resolved.isRepository ? (file: string) => [file] : resolved.repositoryFiles;
      if (files) fromRepository.set(alias, files);
    }
    if (outside.length > 0) {
      const reason = `${from} (sources outside the repository: ${[...new Set(outside)].join(', ')})`;
      return { kind: 'skipped', id, reason };
    }
    const key = `artifact\0${JSON.stringify([plan.copy, [...roots]])}`;
    let artifact = this.#artifacts.get(key);
    if (!artifact) {
      const dir = join(this.workspace, `artifact-${this.#artifacts.size}`);
      artifact = { root: dir, built: buildArtifact(plan, roots, dir) };
      this.#artifacts.set(key, artifact);
    }
    const { root } = artifact;
    const outcome = await artifact.built;
    if ('unsupported' in outcome)
      return {
        kind: 'skipped',
        id,
        reason: `${from} uses ${outcome.unsupported}, which fluxlens does not build`,
      };
    if ('error' in outcome) return { kind: 'failed', id, error: `${from}: ${outcome.error}` };
    const { origins } = outcome;
    const repositoryFiles = (path: string): string[] =>
      (origins.get(path) ?? []).flatMap((o) => fromRepository.get(o.alias)?.(o.file) ?? []);
    return { kind: 'found', id, root, isRepository: false, repositoryFiles };
  }

  private isOwnRepository(ref: SourceRef, object: Manifest | undefined): boolean {
    if (ref.name === 'flux-system' && ref.namespace === 'flux-system') return true;
    const spec = (object?.['spec'] ?? {}) as Record<string, unknown>;
    const url = spec['url'];
    return (
      this.repositoryUrl !== undefined &&
      typeof url === 'string' &&
      normalizeGitUrl(url) === normalizeGitUrl(this.repositoryUrl)
    );
  }

  /**
   * The source's artifact in the workspace. The reviewed repository is already the
   * renderer's own copy, so its artifact hard-links it (nothing writes into either, see
   * workspace/tree.ts), or is that copy itself when the ignore rules leave out nothing of it; a
   * mapped folder is the user's, and is copied.
   */
  private copy(
    dir: string,
    ignore: string | undefined,
    mode: 'link' | 'copy',
    repository?: string,
  ): Promise<string> {
    const key = `${dir}\0${ignore ?? ''}`;
    let copy = this.#copies.get(key);
    if (!copy) {
      copy = (async () => {
        const dest = join(this.workspace, `source-${this.#copies.size}`);
        const entries = await this.walk(dir);
        const rules = await SourceIgnore.load(dir, ignore, entries, `spec.ignore of ${repository}`);
        if (repository !== undefined) this.#repositoryRules.set(key, rules.rules());
        const keep = (rel: string, isDir: boolean) => !rules.ignores(rel, isDir);
        const surelyKept = (rel: string, isDir: boolean) =>
          !rules.mayIgnore(rel, isDir) || keep(rel, isDir);
        if (mode === 'link' && keepsWholeTree(entries, surelyKept)) return dir;
        await copyTree(dir, dest, { mode, keep });
        return dest;
      })();
      this.#copies.set(key, copy);
    }
    return copy;
  }
}

function sourceIgnoreSpec(object: Manifest | undefined): string | undefined {
  const spec = (object?.['spec'] ?? {}) as Record<string, unknown>;
  return typeof spec['ignore'] === 'string' ? spec['ignore'] : undefined;
}

/** Flux's path rules: './x', '/x', 'x/' and 'y/../x' all name x; absent names the root. */
export function normalizeFluxPath(path: string | undefined): string {
  const parts = (path ?? '').split('/').filter((p) => p !== '' && p !== '.');
  return parts.length === 0 ? '.' : posix.normalize(parts.join('/')).replace(/\/$/, '');
}

/** The real folder for `path` inside `root`, or an error when it leaves the root or is missing. */
export async function resolveInside(
  root: string,
  path: string,
): Promise<{ dir: string } | { error: string }> {
  const realRoot = await realpath(root);
  const target = join(root, path);
  const real = await realpath(target).catch(() => undefined);
  if (real === undefined) {
    const lexical = resolve(root, path);
    if (lexical !== resolve(root) && !lexical.startsWith(resolve(root) + sep)) {
      return { error: `path '${path}' leaves the source root` };
    }
    return { error: `path '${path}' not found` };
  }
  if (real !== realRoot && !real.startsWith(realRoot + sep)) {
    return { error: `path '${path}' leaves the source root` };
  }
  return { dir: target };
}
