/**
 * The acceptance checks of issue #10 on one real pull request, from what both tools
 * reported: (a) no `none`/`routine` verdict while a changed producer is unassessed; (b) no
 * danger finding caused by an unreachable chart; (c) chart version moves listed, and routine
 * unless something else explains why not; (d) the changed Kustomizations agree with
 * flate's, else the difference, for a human to judge. Pure, like real-repos-read.ts.
 */
import { z } from 'zod';
import type { FlateSummary, FluxlensSummary } from './real-repos-read.js';

export type CheckStatus = 'pass' | 'fail' | 'n/a' | 'differs';

export interface Check {
  status: CheckStatus;
  detail: string;
}

export interface Checks {
  unassessed: Check;
  unreachable: Check;
  charts: Check;
  agreement: Check & { onlyFluxlens: string[]; onlyFlate: string[] };
}

/**
 * A release whose chart the PR changed (its chart source object, or a move in `charts`) and
 * that could not be fetched counts as unassessed here even when fluxlens does not list it:
 * the issue names "its chart" among what a PR can change.
 */
function unassessedCheck(s: FluxlensSummary): Check {
  const silent = s.evidence.unrenderedChartMoves;
  const n = s.unassessed.length + silent.length;
  if (n === 0) return { status: 'n/a', detail: 'nothing unassessed' };
  const { level, routine } = s.verdict;
  const unlisted =
    silent.length > 0
      ? `; chart changed but never fetched, not listed as unassessed: ${silent.join(', ')}`
      : '';
  const detail = `verdict ${level}${routine ? ', routine' : ''} with ${s.unassessed.length} unassessed${unlisted}`;
  return { status: level === 'none' || routine ? 'fail' : 'pass', detail };
}

function unreachableCheck(s: FluxlensSummary): Check {
  const list = s.evidence.dangerFromUnavailable;
  if (list.length > 0)
    return {
      status: 'fail',
      detail: `render-error-introduced on an unreachable chart: ${list.join(', ')}`,
    };
  const unavailable =
    (s.errors['head chart-unavailable'] ?? 0) + (s.errors['base chart-unavailable'] ?? 0);
  return { status: 'pass', detail: `${unavailable} chart-unavailable errors, none a danger` };
}

function chartsCheck(s: FluxlensSummary): Check {
  const moves = s.evidence.chartVersionChanges;
  if (moves === 0) return { status: 'n/a', detail: 'no chart version moved' };
  if (s.charts === undefined) return { status: 'n/a', detail: 'the report has no charts field' };
  if (s.charts.length === 0)
    return { status: 'fail', detail: `${moves} chart version moves, none listed` };
  const listed = `${s.charts.length} listed`;
  if (s.verdict.routine) return { status: 'pass', detail: `${listed}, routine` };
  const above = (s.findings['caution'] ?? 0) + (s.findings['danger'] ?? 0);
  const why =
    s.unassessed.length > 0
      ? `${s.unassessed.length} unassessed`
      : s.evidence.otherChanges > 0
        ? `${s.evidence.otherChanges} other changes`
        : above > 0
          ? `${above} findings above info`
          : undefined;
  if (why === undefined) return { status: 'fail', detail: `${listed}, yet not routine` };
  return { status: 'pass', detail: `${listed}, not routine: ${why}` };
}

const kustomizations = (list: readonly string[]) =>
  new Set(list.filter((p) => p.startsWith('Kustomization/')));

function agreementCheck(s: FluxlensSummary, flate: FlateSummary | undefined): Checks['agreement'] {
  if (flate === undefined)
    return { status: 'n/a', detail: 'flate gave no diff', onlyFluxlens: [], onlyFlate: [] };
  const ours = kustomizations(s.changedProducers);
  const theirs = kustomizations(flate.changedProducers);
  const onlyFluxlens = [...ours].filter((k) => !theirs.has(k)).sort();
  const onlyFlate = [...theirs].filter((k) => !ours.has(k)).sort();
  if (onlyFluxlens.length === 0 && onlyFlate.length === 0)
    return { status: 'pass', detail: `${ours.size} the same`, onlyFluxlens, onlyFlate };
  const detail = `${ours.size - onlyFluxlens.length} the same, ${onlyFluxlens.length} only fluxlens, ${onlyFlate.length} only flate`;
  return { status: 'differs', detail, onlyFluxlens, onlyFlate };
}

export function checkCase(fluxlens: FluxlensSummary, flate: FlateSummary | undefined): Checks {
  return {
    unassessed: unassessedCheck(fluxlens),
    unreachable: unreachableCheck(fluxlens),
    charts: chartsCheck(fluxlens),
    agreement: agreementCheck(fluxlens, flate),
  };
}

const RenderOutput = z.object({
  producers: z.array(
    z.object({
      kind: z.string(),
      namespace: z.string(),
      name: z.string(),
      skipped: z.string().optional(),
    }),
  ),
});

/** Producers `fluxlens render --output json` could not render because of their source. */
export function skippedProducers(json: unknown): string[] {
  return RenderOutput.parse(json)
    .producers.filter((p) => p.skipped !== undefined)
    .map((p) => `${p.kind}/${p.namespace}/${p.name}: ${p.skipped ?? ''}`)
    .sort();
}
