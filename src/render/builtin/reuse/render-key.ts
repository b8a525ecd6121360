/**
 * The keys of renders kept whole (whole-render.ts), and when a render may be kept at all:
 * apart from what judges a render, which reads charts' versions, so that a review answered
 * from what was kept (kept-renders.ts) keys without loading them.
 */
import { renderCacheKey } from '../../cache/index.js';
import type { RenderRequest } from '../../engine.js';
import type { RenderSettings } from '../../settings.js';

/**
 * The key of a render of commit `sha`: the entry, and everything else the render depends
 * on (renderParts).
 */
export function wholeRenderKey(
  sha: string,
  request: RenderRequest,
  settings: RenderSettings,
  tools: Record<string, string>,
): string {
  return renderCacheKey([
    'cluster/1',
    sha,
    request.entry,
    ...renderParts(request, settings, tools),
  ]);
}

/**
 * The key of what every render of `request`'s repository depends on besides its commit and
 * its entry, for what is kept of the renders of a review (RenderedCluster.kept).
 */
export function renderContextKey(
  request: { repoUrl?: string | undefined },
  settings: RenderSettings,
  tools: Record<string, string>,
): string {
  return renderCacheKey(['render-context/1', ...renderParts(request, settings, tools)]);
}

/**
 * What a render depends on besides its commit and its entry: the repository's URL (which
 * sources are the repository itself), the tools and every setting that changes what a
 * render gives. Credentials, time bounds and concurrency are left out: they change whether
 * a render succeeds, and a render that did not is kept only with failures the unavailable
 * memory holds, whose key names the credentials.
 */
function renderParts(
  request: { repoUrl?: string | undefined },
  settings: RenderSettings,
  tools: Record<string, string>,
): unknown[] {
  const { helm } = settings;
  return [
    request.repoUrl ?? null,
    tools,
    settings.strictSubstitution,
    settings.inClusterSources,
    settings.allowRemoteBases,
    settings.enableExecPlugins,
    settings.maxOutputBytes,
    settings.maxSourceFiles,
    helm.enabled,
    helm.offline,
    helm.kubeVersion ?? null,
    helm.apiVersions,
    helm.skipCrds,
    helm.isUpgrade,
    helm.maxChartBytes,
  ];
}

/**
 * Whether a render of this request can be kept at all: a mapped folder or a remote base is
 * read from outside the commit, so such a render is never keyed, read back or kept.
 */
export function keepable(
  request: Pick<RenderRequest, 'sources'>,
  settings: RenderSettings,
): boolean {
  return request.sources.length === 0 && !settings.allowRemoteBases;
}
