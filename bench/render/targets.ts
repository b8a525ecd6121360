/**
 * The targets of issue #12, judged on one run's medians (ratios, because absolute
 * figures on a shared machine say more about its other load than about fluxlens).
 * A target whose peer is not installed, or whose rows failed, cannot pass.
 */
import type { Row } from './run-scenario.js';

export interface Target {
  id: string;
  statement: string;
  verdict: 'PASS' | 'MISS' | 'n/a';
  figures: string;
}

const MIB = 2 ** 20;
export const MEMORY_LIMIT_BYTES = 400 * MIB;

function find(
  rows: readonly Row[],
  scenario: string,
  contestant: string,
  phase?: string,
): Row | undefined {
  return rows.find(
    (r) =>
      r.scenario === scenario &&
      r.contestant === contestant &&
      (phase === undefined || r.phase === phase),
  );
}

const ms = (row: Row) => `${row.medianMs.toFixed(0)} ms`;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;

function ratioTarget(
  id: string,
  statement: string,
  a: Row | undefined,
  b: Row | undefined,
  pass: (ratio: number) => boolean,
  describe: (a: Row, b: Row, ratio: number) => string,
): Target {
  if (a === undefined || b === undefined)
    return { id, statement, verdict: 'n/a', figures: 'not measured in this run' };
  const ratio = a.medianMs / b.medianMs;
  const failed = a.failed + b.failed > 0 ? ' (some runs failed)' : '';
  const ok = pass(ratio) && failed === '';
  return { id, statement, verdict: ok ? 'PASS' : 'MISS', figures: describe(a, b, ratio) + failed };
}

/** Judged on the rows of one subject (the synthetic fleet). */
export function judge(rows: readonly Row[]): Target[] {
  const targets: Target[] = [
    ratioTarget(
      'one-file-vs-flate',
      'one-file PR, base warm: fluxlens no slower than flate diff (changed-only)',
      find(rows, 'one-file', 'fluxlens'),
      find(rows, 'one-file', 'flate diff all'),
      (r) => r <= 1,
      (a, b, r) => `fluxlens ${ms(a)}, flate ${ms(b)}: ${r.toFixed(2)}x flate's time`,
    ),
    ratioTarget(
      'one-file-vs-full-render',
      'one-file PR, base warm: fluxlens at least 10x faster than its own full two-sided render (--no-cache)',
      find(rows, 'one-file', 'fluxlens --no-cache'),
      find(rows, 'one-file', 'fluxlens'),
      (r) => r >= 10,
      (a, b, r) => `--no-cache ${ms(a)}, cached ${ms(b)}: ${r.toFixed(1)}x faster`,
    ),
    ratioTarget(
      'cold-vs-flate',
      'cold full render: fluxlens at most 1.5x flate build all',
      find(rows, 'cold', 'fluxlens'),
      find(rows, 'cold', 'flate build all'),
      (r) => r <= 1.5,
      (a, b, r) => `fluxlens ${ms(a)}, flate ${ms(b)}: ${r.toFixed(2)}x flate's time`,
    ),
    memoryTarget(rows),
    ratioTarget(
      'no-op-second',
      'no-op re-push: the second identical diff at least 5x faster than the first',
      find(rows, 'no-op', 'fluxlens', 'first'),
      find(rows, 'no-op', 'fluxlens', 'second'),
      (r) => r >= 5,
      (a, b, r) => `first ${ms(a)}, second ${ms(b)}: ${r.toFixed(1)}x faster`,
    ),
  ];
  return targets;
}

/** fluxlens's highest process-tree peak in any scenario, against flate's. */
function memoryTarget(rows: readonly Row[]): Target {
  const id = 'peak-memory';
  const statement = `peak memory (process tree) at most ${mib(MEMORY_LIMIT_BYTES)} and below flate's`;
  const highest = (tool: string) =>
    rows
      .filter((r) => r.tool === tool)
      .reduce<
        Row | undefined
      >((top, r) => (top === undefined || r.peakBytes > top.peakBytes ? r : top), undefined);
  const ours = highest('fluxlens');
  const flate = highest('flate');
  if (ours === undefined)
    return { id, statement, verdict: 'n/a', figures: 'not measured in this run' };
  const where = (r: Row) =>
    `${mib(r.peakBytes)} (${r.scenario}, ${r.contestant}${r.phase === 'diff' || r.phase === 'render' ? '' : ` ${r.phase}`})`;
  const figures = `fluxlens ${where(ours)}; flate ${flate ? where(flate) : 'not installed'}`;
  const over = ours.peakBytes > MEMORY_LIMIT_BYTES;
  // Over the limit is a miss whatever flate does; under it, flate must have run to compare.
  if (!over && flate === undefined) return { id, statement, verdict: 'n/a', figures };
  const ok = !over && flate !== undefined && ours.peakBytes < flate.peakBytes;
  return { id, statement, verdict: ok ? 'PASS' : 'MISS', figures };
}
