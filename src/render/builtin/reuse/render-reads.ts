/**
 * What a render of a commit read, handed to the review's other render: the builds of
 * carried-builds.ts, and what discovery found under the entry, which reads only the entry's
 * files and the ignore rules, so a commit that changes neither finds the same objects. A
 * render kept whole keeps them beside it, for the next review of the same commit.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { classify } from '../../../errors.js';
import { changedPaths } from '../../../git/index.js';
import type { ToolRunner } from '../../../tool-runner.js';
import {
  faithfulJson,
  renderCacheKey,
  type RenderCache,
  type RenderMemo,
} from '../../cache/index.js';
import type { RenderRequest } from '../../engine.js';
import { normalizeFluxPath, type Discovery } from '../../flux/index.js';
import {
  BuildReads,
  CarriedBuilds,
  ReleaseReads,
  type BuildReadsRecord,
  type ReleaseReadsRecord,
  type UnavailableRecord,
} from './carried-builds.js';
import { RememberedChart } from '../../helm/index.js';

/**
 * What a render of a commit read: its builds, what discovery found under its entry, and
 * the releases whose chart the unavailable memory answered for.
 */
export interface RenderReads {
  builds: BuildReadsRecord;
  releases: ReleaseReadsRecord;
  unavailable: UnavailableRecord;
  /** Absent when the revision lacked files (discovery may have missed some). */
  discovery?: Discovery | undefined;
}

/** What the last render with each memo read, and of which commit. */
export class ReviewReads {
  readonly #last = new WeakMap<RenderMemo, { sha: string } & RenderReads>();

  /** `reads`, of commit `sha`, is what the next render with `memo` may carry. */
  remember(memo: RenderMemo | undefined, sha: string, reads: RenderReads): void {
    if (memo) this.#last.set(memo, { sha, ...reads });
  }

  /**
   * The record a render of commit `sha` fills as it builds, remembered for the next render
   * with `memo`, with a copy of what its discovery found (undefined: the revision lacked
   * files, so discovery may have missed some).
   */
  begin(memo: RenderMemo | undefined, sha: string, discovery: Discovery | undefined): RenderReads {
    const reads: RenderReads = {
      builds: new Map(),
      releases: new Map(),
      unavailable: new Map(),
      ...(discovery ? { discovery: structuredClone(discovery) } : {}),
    };
    this.remember(memo, sha, reads);
    return reads;
  }

  /**
   * What the last render with the same memo (the review's other render) still tells of
   * this one, of commit `sha`: git names the paths that differ between the two commits. Its
   * builds whose reads none of those touch, and its discovery when no path in the entry
   * changed (a copy: nothing of one render's objects reaches another).
   */
  async carried(
    runner: ToolRunner,
    request: RenderRequest,
    sha: string,
  ): Promise<Carried | undefined> {
    const last = request.memo && this.#last.get(request.memo);
    if (last === undefined) return undefined;
    const repoDir = resolve(request.repoDir);
    const changed = await changedPaths(runner, repoDir, last.sha, sha).catch((err: unknown) => {
      if (classify(err) === 'cancelled') throw err;
      return undefined;
    });
    return changed && carriedReads(last, changed, request.entry);
  }
}

/**
 * What `reads` still tells of a render of `entry` at a commit where `changed` paths differ
 * (none: the same commit): the builds whose reads none of them touch, and discovery when
 * no path in the entry changed (a copy: nothing of one render's objects reaches another).
 */
export function carriedReads(
  reads: RenderReads,
  changed: readonly string[],
  entry: string,
): Carried | undefined {
  const builds = CarriedBuilds.between(reads.builds, changed, reads.releases);
  if (builds === undefined) return undefined;
  const folder = normalizeFluxPath(entry);
  const discovery = reads.discovery;
  if (discovery?.entry !== folder || !builds.untouched(folder)) return { builds };
  return { builds, discovery: structuredClone(discovery) };
}

/** What the review's other render, or an earlier render of the same commit, read that a render may take. */
export interface Carried {
  builds: CarriedBuilds;
  discovery?: Discovery | undefined;
}

const Found = z.object({
  manifest: z.record(z.string(), z.unknown()),
  file: z.string(),
  line: z.number(),
});

const Stored = z.object({
  v: z.literal(1),
  builds: z.record(z.string(), BuildReads),
  releases: z.record(z.string(), ReleaseReads),
  unavailable: z.record(z.string(), RememberedChart).optional(),
  discovery: z
    .object({
      entry: z.string(),
      kustomizations: z.array(Found),
      helmReleases: z.array(Found),
      sources: z.array(Found),
      configData: z.array(Found),
      instances: z.array(Found),
    })
    .optional(),
});

function storeKey(renderKey: string): string {
  return renderCacheKey(['render-reads/1', renderKey]);
}

/**
 * Keeps what a render read beside the render kept whole under `renderKey`; its discovery
 * only when JSON gives it back as it is.
 */
export async function writeRenderReads(
  store: RenderCache,
  renderKey: string,
  reads: RenderReads,
): Promise<void> {
  const recorded = {
    v: 1,
    builds: Object.fromEntries(reads.builds),
    releases: Object.fromEntries(reads.releases),
    unavailable: Object.fromEntries(reads.unavailable),
  };
  const text =
    (reads.discovery && faithfulJson({ ...recorded, discovery: reads.discovery })) ??
    JSON.stringify(recorded);
  await store.put(storeKey(renderKey), text);
}

/** What the render kept under `renderKey` read; nothing recorded when there is none to trust. */
export async function readRenderReads(store: RenderCache, renderKey: string): Promise<RenderReads> {
  const stored = await store.getParsed(storeKey(renderKey), Stored, 'never');
  const builds = new Map(Object.entries(stored?.builds ?? {}));
  const releases = new Map(Object.entries(stored?.releases ?? {}));
  const unavailable = new Map(Object.entries(stored?.unavailable ?? {}));
  const discovery = stored?.discovery;
  const reads = { builds, releases, unavailable };
  return discovery ? { ...reads, discovery } : reads;
}
