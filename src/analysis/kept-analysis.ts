/**
 * Analyses kept in the render cache and given back when the same question is asked again (a
 * re-run, a re-push of the same head, a second check of one commit pair): the key names
 * both commits, the cluster entries asked for, the render options and what render keys
 * every render of the repository on (tools, settings, the repository's URL, fluxlens's
 * version). The base's policy, which names clusters, rules and normalization, is part of
 * the base commit. An analysis is kept only when each of its renders is kept whole
 * (RenderedCluster.kept), and given back only while the unavailable memory still holds every
 * failure those renders were kept with, so it never outlives that memory. What is kept is
 * the redacted result, as every report gets it.
 */
import { z } from 'zod';
import type { ResolvedRevisions } from '../git/index.js';
import {
  ANALYSIS_SCHEMA_VERSION,
  FailOn,
  type AnalysisResult,
  type RenderedCluster,
} from '../model/index.js';
import {
  keptRendersStillHold,
  RenderCache,
  renderCacheKey,
  type RenderSettings,
} from '../render/index.js';
import type { AnalysisRequest } from './request.js';

const VERSION = 1;

/**
 * The result's own fields are checked for shape only: the key names this version of
 * fluxlens, so an entry that parses was written by this code from a result, and the check
 * refuses one that was damaged or cut short.
 */
const KeptResult = z.looseObject({
  schemaVersion: z.literal(ANALYSIS_SCHEMA_VERSION),
  verdict: z.looseObject({ level: z.string(), headline: z.string() }),
  summary: z.looseObject({ added: z.number(), removed: z.number(), changed: z.number() }),
  clusters: z.array(z.record(z.string(), z.unknown())),
  changes: z.array(z.record(z.string(), z.unknown())),
  findings: z.array(z.record(z.string(), z.unknown())),
  errors: z.array(z.record(z.string(), z.unknown())),
});

const Entry = z.object({
  v: z.literal(VERSION),
  failOn: FailOn,
  carryAcknowledgements: z.literal(true).optional(),
  /** The failures its renders were kept with (RenderedCluster.kept). */
  holds: z.array(z.string()),
  result: KeptResult,
});

/** Where an analysis is kept, and under which key; undefined: it may not be kept. */
export interface KeptAnalysisPlace {
  store: RenderCache;
  key: string;
  settings: RenderSettings;
}

/**
 * Where the analysis of `request` between these revisions is kept: the render cache, when
 * there is one and its renders may be kept whole (`context`, from keptRenderContext).
 * `settings` are the request's own: what the base's policy adds to them is part of the
 * base commit.
 */
export function keptAnalysisPlace(
  request: AnalysisRequest,
  revisions: ResolvedRevisions,
  settings: RenderSettings,
  context: string | undefined,
): KeptAnalysisPlace | undefined {
  const cache = settings.cache;
  if (cache === undefined || context === undefined) return undefined;
  const key = renderCacheKey([
    'analysis/1',
    revisions.base.sha,
    revisions.head.sha,
    request.paths,
    request.render,
    context,
  ]);
  return { store: new RenderCache(cache.dir, cache.maxBytes), key, settings };
}

export interface KeptAnalysis {
  result: AnalysisResult;
  failOn: FailOn;
  carryAcknowledgements?: true;
}

/** The analysis kept at `place`, while the memory holds what its renders were kept with. */
export async function readKeptAnalysis(
  place: KeptAnalysisPlace,
): Promise<KeptAnalysis | undefined> {
  const raw: unknown = await place.store.get(place.key, 'never').then(parseJson);
  const entry = Entry.safeParse(raw);
  if (!entry.success) return undefined;
  if (!(await keptRendersStillHold(entry.data.holds, place.settings))) return undefined;
  // JSON holds no undefined, so what passed the schema is taken as written.
  const { result } = raw as { result: AnalysisResult };
  const carry = entry.data.carryAcknowledgements;
  return { result, failOn: entry.data.failOn, ...(carry ? { carryAcknowledgements: carry } : {}) };
}

/**
 * Keeps an analysis at `place` when every render it compared is kept whole (a side where
 * the cluster's folder does not exist is `missing`, which the commit alone decides; one
 * where no Flux object was found, `empty`, is not kept), with the failures those renders
 * were kept with; `result` is already redacted.
 */
export async function keepAnalysis(
  place: KeptAnalysisPlace,
  analysis: KeptAnalysis,
  renders: ReadonlyArray<RenderedCluster | 'missing' | 'empty'>,
): Promise<void> {
  const holds = new Set<string>();
  for (const render of renders) {
    if (render === 'missing') continue;
    if (render === 'empty' || render.kept === undefined) return;
    for (const hold of render.kept.holds) holds.add(hold);
  }
  const entry = {
    v: VERSION,
    failOn: analysis.failOn,
    ...(analysis.carryAcknowledgements ? { carryAcknowledgements: true } : {}),
    holds: [...holds].sort(),
    result: { ...analysis.result, timings: {} },
  };
  await place.store.put(place.key, JSON.stringify(entry));
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
