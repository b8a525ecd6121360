/**
 * Content keys of a Kustomization: one for its `kustomize build` (the render cache on disk
 * keeps the build's output under it), and one for the whole producer (the build's key and
 * everything the post-build reads), under which the other revision's render of a review
 * finds it unchanged.
 */
import { join } from 'node:path';
import { classify } from '../../../errors.js';
import type { RenderSettings } from '../../settings.js';
import {
  buildInputSet,
  type BuildInputSet,
  type DigestMemo,
  type GeneratedKustomization,
} from '../../kustomize/index.js';
import { renderCacheKey, type RenderCache, type RenderMemo } from '../../cache/index.js';
import type { FluxKustomization } from '../../flux/index.js';
import type { ProducerRef, SecretDerived } from '../../../model/index.js';
import type { BuildReadsRecord, CarriedBuilds } from './carried-builds.js';

/** What keys a Kustomization by its content, and the stores that use the keys. */
export interface KustomizeKeying {
  /** `kustomize version`: another kustomize may build the same files differently. */
  tool: string;
  digests: DigestMemo;
  /** The render cache on disk; absent: every build runs kustomize. */
  store?: RenderCache | undefined;
  /** The outcomes of the review's other render; absent: every producer builds. */
  memo?: RenderMemo | undefined;
  /**
   * What this render's builds of the repository read, and what the last render's still
   * tell (see carried-builds.ts); absent: every build's inputs are read for its key.
   */
  reads?: { record: BuildReadsRecord; carried?: CarriedBuilds | undefined } | undefined;
}

/**
 * What the build can read (see buildInputSet), with digests when builds are keyed;
 * undefined when it could read something else (a remote base, a path out of the root).
 */
export async function readBuildInputs(
  keying: KustomizeKeying | undefined,
  input: { sourceRoot: string; path: string },
  written: Record<string, unknown>,
): Promise<BuildInputSet | undefined> {
  const dir = join(input.sourceRoot, input.path);
  return buildInputSet(input.sourceRoot, dir, written, keying?.digests ?? null).catch(
    (err: unknown) => {
      // A file the walk cannot read fails the build too, which says so in its own words.
      if (classify(err) === 'cancelled') throw err;
      return undefined;
    },
  );
}

/**
 * The cache key of this build: the kustomization as Flux writes it, the digest of every
 * file the build can read, the kustomize version and the switches that change a build.
 * Substitution, labels and commonMetadata come after kustomize, so their inputs are in
 * the producer's key instead.
 */
export function buildKey(
  keying: KustomizeKeying,
  settings: RenderSettings,
  input: { path: string },
  generated: GeneratedKustomization,
  written: Record<string, unknown>,
  inputs: BuildInputSet,
): string {
  return renderCacheKey([
    'kustomize-build/1',
    keying.tool,
    settings.allowRemoteBases,
    settings.enableExecPlugins,
    input.path,
    generated.fileName,
    written,
    inputs.files,
  ]);
}

/** What of a Kustomization build's input the producer's key holds besides its build. */
export interface ProducerKeyParts {
  ks: FluxKustomization;
  secret?: SecretDerived | undefined;
  ref: ProducerRef;
  filePrefix: string;
  path: string;
}

/**
 * The key of the whole producer: its build's key and what turns the build's output into
 * its objects: the effective Kustomization (after its parent's substitution: postBuild,
 * commonMetadata), what in it derives from a Secret, the values of its substitution
 * sources as this render's cluster holds them (`substitution`, everything post-build
 * substitution reads), how its files are named, its identity (owner labels) and whether it
 * kept the origin annotation.
 */
export function producerKey(
  build: string,
  substitution: unknown,
  input: ProducerKeyParts,
  generated: Pick<GeneratedKustomization, 'fluxWantsOrigin'>,
): string {
  return renderCacheKey([
    'kustomization/1',
    build,
    generated.fluxWantsOrigin,
    input.ref,
    input.filePrefix,
    input.path,
    input.ks,
    input.secret ?? null,
    substitution,
  ]);
}
