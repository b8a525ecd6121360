/**
 * The image and chart version moves of a whole result, as every report lists them: once
 * per move over all clusters, sorted. Results stored before charts were recorded have none.
 */
import {
  type AnalysisResult,
  type ChartChange,
  type ImageChange,
  compareStrings,
} from '../model/index.js';

function byKey<T>(entries: Map<string, T>): T[] {
  return [...entries.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, v]) => v);
}

export function imageMoves(result: AnalysisResult): ImageChange[] {
  const seen = new Map<string, ImageChange>();
  for (const image of result.clusters.flatMap((c) => c.images)) {
    seen.set(JSON.stringify([image.repository, image.from ?? '', image.to ?? '']), image);
  }
  return byKey(seen);
}

/**
 * One row per chart, source, source at base (when the chart moves to another), from and
 * to; the releases of every cluster together.
 */
export function chartMoves(result: AnalysisResult): ChartChange[] {
  const seen = new Map<string, ChartChange>();
  for (const chart of result.clusters.flatMap((c) => c.charts ?? [])) {
    const { source, fromSource = '', from = '', to = '' } = chart;
    const key = JSON.stringify([chart.chart, source, fromSource, from, to]);
    const producers = new Set([...(seen.get(key)?.producers ?? []), ...chart.producers]);
    seen.set(key, { ...chart, producers: [...producers].sort(compareStrings) });
  }
  return byKey(seen);
}

/** How many releases a chart row names before "and N more". */
export const RELEASES_SHOWN = 5;
