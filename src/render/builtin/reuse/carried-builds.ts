/**
 * What each Kustomization's build read at one commit, kept so that a render of another
 * commit of the same repository can take the build's key from it when git says that none
 * of those paths changed: the build would read the same bytes, so its key is the same,
 * and its files are neither read nor digested again. A review renders its base, then its
 * head, which differs in a few files; a render kept whole keeps these with it.
 *
 * Only builds of the reviewed repository are recorded (git knows nothing of another
 * source), only when every path they reached is its own (a symlink's target is not the
 * path git names), and nothing is carried across a change to a `.sourceignore` file,
 * which changes what every build of the repository can see.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { renderCacheKey } from '../../cache/index.js';
import type { BuildInputSet, GeneratedKustomization } from '../../kustomize/index.js';
import type { FluxKustomization } from '../../flux/index.js';
import type { RememberedChart } from '../../helm/index.js';

/** One build's reads, repository-relative, and the key they gave. */
export const BuildReads = z.object({
  /** The build's key (build-keys.ts). */
  build: z.string(),
  /** Whether Flux asks kustomize for origins (the kustomization file's say). */
  fluxWantsOrigin: z.boolean(),
  /** What else the build's key holds (see buildSpec). */
  spec: z.string(),
  /** Files read, or looked for and missing. */
  files: z.array(z.string()),
  /** Folders whose entries the build looked at: each is searched for a kustomization file. */
  dirs: z.array(z.string()),
  /** Folders read whole, every file below: a generated kustomization lists its folder. */
  trees: z.array(z.string()),
});
export type BuildReads = z.infer<typeof BuildReads>;

/** The builds of one render, by their producer's key ('Kustomization/ns/name'). */
export type BuildReadsRecord = Map<string, BuildReads>;

/** A release's key, and its pre-key: what the key holds but its chart (carried-release.ts). */
export const ReleaseReads = z.object({ pre: z.string(), key: z.string() });
export type ReleaseReads = z.infer<typeof ReleaseReads>;

/** The releases of one render, by their producer's key ('HelmRelease/ns/name'). */
export type ReleaseReadsRecord = Map<string, ReleaseReads>;

/**
 * The releases of one render whose chart could not be fetched and which the unavailable
 * memory holds, by their producer's key: a render kept with them is read back only while
 * the memory still holds each (whole-render.ts).
 */
export type UnavailableRecord = Map<string, RememberedChart>;

/** What of a Kustomization build's input its spec holds (see buildSpec). */
export interface BuildSpecParts {
  ks: FluxKustomization;
  /** The source's spec.ignore, which shapes what its artifact holds. */
  sourceIgnore?: string | undefined;
  /** Normalised path inside the source ('.' for the root). */
  path: string;
}

/**
 * What a build's key holds besides the files it read: the Kustomization as its parent's
 * substitution left it, its path, and the ignore rules of the artifact it reads.
 */
export function buildSpec(input: BuildSpecParts): string {
  return renderCacheKey(['build-spec/1', input.ks, input.path, input.sourceIgnore ?? '']);
}

/** The reads of a build that ran (or was keyed), as a record keeps them. */
export function recordedReads(
  input: BuildSpecParts,
  build: string,
  generated: GeneratedKustomization,
  inputs: BuildInputSet,
): BuildReads {
  const top = generated.generated
    ? []
    : [input.path === '.' ? generated.fileName : `${input.path}/${generated.fileName}`];
  return {
    build,
    fluxWantsOrigin: generated.fluxWantsOrigin,
    spec: buildSpec(input),
    files: [...top, ...inputs.files.map(([path]) => path)],
    dirs: [...new Set([input.path, ...inputs.dirs])],
    trees: generated.generated ? [input.path] : [],
  };
}

/** The paths changed between the recorded commit and this one, and what they leave as it was. */
export class CarriedBuilds {
  /** How many producers were keyed from the record: counted by their caller. */
  taken = 0;
  readonly #records: ReadonlyMap<string, BuildReads>;
  readonly #releases: ReadonlyMap<string, ReleaseReads>;
  readonly #files: ReadonlySet<string>;
  /** The folder of each changed path. */
  readonly #parents = new Set<string>();
  /** Every folder above a changed path, the root ('.') included. */
  readonly #ancestors = new Set<string>();

  private constructor(
    records: ReadonlyMap<string, BuildReads>,
    releases: ReadonlyMap<string, ReleaseReads>,
    changed: readonly string[],
  ) {
    this.#records = records;
    this.#releases = releases;
    this.#files = new Set(changed);
    for (const path of changed) {
      let dir = posix.dirname(path);
      this.#parents.add(dir);
      for (;;) {
        this.#ancestors.add(dir);
        if (dir === '.') break;
        dir = posix.dirname(dir);
      }
    }
  }

  /** Undefined when nothing can be carried: a `.sourceignore` changed. */
  static between(
    records: ReadonlyMap<string, BuildReads>,
    changed: readonly string[],
    releases: ReadonlyMap<string, ReleaseReads> = new Map(),
  ): CarriedBuilds | undefined {
    if (changed.some((path) => posix.basename(path) === '.sourceignore')) return undefined;
    return new CarriedBuilds(records, releases, changed);
  }

  /** The recorded key of the release `producer`, if it had the same pre-key. */
  release(producer: string, pre: string): string | undefined {
    const reads = this.#releases.get(producer);
    return reads?.pre === pre ? reads.key : undefined;
  }

  /** Whether no changed path lies in `folder` ('.' for the root), at any depth. */
  untouched(folder: string): boolean {
    return !this.#ancestors.has(folder);
  }

  /** The recorded build of `producer`, if its spec is the same and nothing it read changed. */
  unchanged(producer: string, spec: string): BuildReads | undefined {
    const reads = this.#records.get(producer);
    if (reads === undefined || reads.spec !== spec) return undefined;
    if (reads.files.some((file) => this.#files.has(file))) return undefined;
    if (reads.dirs.some((dir) => this.#parents.has(dir))) return undefined;
    if (reads.trees.some((tree) => this.#ancestors.has(tree))) return undefined;
    return reads;
  }
}
