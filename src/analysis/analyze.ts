/**
 * One analysis: a repository, a base and a head in; an AnalysisResult out. Resolves the
 * revisions, gives back the analysis of the same question kept before (kept-analysis.ts),
 * else renders, diffs and judges both revisions (analyze-revisions.ts). The CLI and the
 * worker call it the same way; it publishes nothing.
 */
import { resolveRevisions } from '../git/index.js';
import type { AnalysisResult } from '../model/index.js';
import { keptRenderContext, renderSettings } from '../render/index.js';
import { keptAnalysisPlace, readKeptAnalysis } from './kept-analysis.js';
import type { AnalysisDeps, AnalysisOutcome, AnalysisRequest } from './request.js';
import { Stopwatch } from './stopwatch.js';

export async function analyze(
  request: AnalysisRequest,
  deps: AnalysisDeps,
): Promise<AnalysisOutcome> {
  const runner = deps.signal ? deps.runner.withSignal(deps.signal) : deps.runner;
  const clock = new Stopwatch(deps.now ?? (() => performance.now()));
  const settings = renderSettings(deps.machine, request.render);
  // Asked while git resolves the revisions: the tools' versions, which key a kept analysis.
  const context =
    settings.cache === undefined
      ? Promise.resolve(undefined)
      : keptRenderContext(request.engine, request, runner, settings);
  // Awaited only for two different commits, where a tool missing fails as a render would.
  context.catch(() => undefined);
  const revisions = await clock.time('git', () =>
    resolveRevisions(runner, request.repoDir, request, { timeoutMs: deps.machine.toolTimeoutMs }),
  );
  deps.onProgress?.({ stage: 'revisions', revisions });
  const place =
    revisions.base.sha === revisions.head.sha
      ? undefined
      : await clock.time('analysis-store', async () =>
          keptAnalysisPlace(request, revisions, settings, await context),
        );
  const kept = place && (await clock.time('analysis-store', () => readKeptAnalysis(place)));
  if (kept) {
    const labels = request.labels;
    const result: AnalysisResult = {
      ...kept.result,
      base: { rev: labels?.base ?? revisions.base.rev, sha: revisions.base.sha },
      head: { rev: labels?.head ?? revisions.head.rev, sha: revisions.head.sha },
    };
    result.timings = { ...clock.finish(), 'analysis-kept': 1 };
    deps.logger?.debug({ timings: result.timings }, 'analysis kept before');
    const carry = kept.carryAcknowledgements;
    return {
      result,
      failOn: kept.failOn,
      ...(carry ? { carryAcknowledgements: carry } : {}),
      revisions,
    };
  }
  // Loaded only now: an analysis kept before is given back without the renderer, diff and
  // risk, which are most of what a process would load.
  const { analyzeRevisions } = await import('./analyze-revisions.js');
  return analyzeRevisions({ request, deps, runner, clock, revisions, place });
}
