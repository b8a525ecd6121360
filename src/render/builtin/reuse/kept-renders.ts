/**
 * What a review may keep of renders kept whole (RenderedCluster.kept): such a render is the
 * one its commit gives again under the same key while the unavailable memory holds its
 * failures, so whatever follows from such renders alone may be kept under their keys too,
 * and is good exactly as long as each of those failures is held. Read without the engine:
 * a review answered from what was kept loads no renderer.
 */
import { isUnavailable, producerKey, type RenderedCluster } from '../../../model/index.js';
import type { ToolRunner } from '../../../tool-runner.js';
import { RenderCache } from '../../cache/index.js';
import type { RenderRequest } from '../../engine.js';
import { RememberedChart, stillRemembered } from '../../helm/index.js';
import type { EngineName, RenderSettings } from '../../settings.js';
import {
  builtinTools,
  helmServerVersion,
  kustomizeServerVersion,
  toolVersion,
} from './tool-version.js';
import { keepable, renderContextKey } from './render-key.js';

/**
 * The failures `cluster` is kept with: the unavailable memory's record of the chart of each
 * release whose chart was unavailable, one token per record; undefined when one has none
 * (then nothing may be kept of it).
 */
export function holdsOf(
  cluster: RenderedCluster,
  remembered: ReadonlyMap<string, RememberedChart>,
): string[] | undefined {
  const holds = new Set<string>();
  for (const error of cluster.errors) {
    if (!isUnavailable(error)) continue;
    const record = remembered.get(producerKey(error.producer));
    if (record === undefined) return undefined;
    const { subject, failedAt, until } = record;
    const { source, host, chart, version } = subject;
    holds.add(JSON.stringify({ subject: { source, host, chart, version }, failedAt, until }));
  }
  return [...holds].sort();
}

/**
 * Whether renders kept with these failures would be read back now: the memory is on, not
 * bypassed (offline, `--retry-unavailable-charts`), and still holds each very failure.
 */
export async function keptRendersStillHold(
  holds: readonly string[],
  settings: RenderSettings,
): Promise<boolean> {
  const { helm } = settings;
  const ctx = { cacheDir: helm.chartCacheDir, offline: helm.offline, network: helm.network };
  // Side by side: one small file each, and a repository may hold dozens.
  const held = await Promise.all(
    holds.map((hold) => {
      const record = RememberedChart.safeParse(parseJson(hold));
      return record.success && stillRemembered(record.data, ctx);
    }),
  );
  return held.every(Boolean);
}

/**
 * The key of everything an `engine` render of `request`'s repository depends on besides its
 * commit and its entry (its tools and the settings that change its output), when such
 * renders are kept whole: the builtin engine's, with a render cache, nothing mapped from
 * outside the commit and no remote bases; else undefined.
 */
export async function keptRenderContext(
  engine: EngineName,
  request: { sources: RenderRequest['sources']; repoUrl?: string | undefined },
  runner: ToolRunner,
  settings: RenderSettings,
): Promise<string | undefined> {
  const cache = settings.cache;
  if (engine !== 'builtin' || cache === undefined || !keepable(request, settings)) return undefined;
  const store = new RenderCache(cache.dir, cache.maxBytes);
  const ask = (tool: Parameters<typeof toolVersion>[2], args: string[]) =>
    toolVersion(runner, store, tool, args);
  const [kustomize, helm] = await Promise.all([
    kustomizeServerVersion(ask, settings),
    helmServerVersion(ask, settings),
  ]);
  const tools = await builtinTools(ask, settings, { kustomize, helm });
  return renderContextKey(request, settings, tools);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
