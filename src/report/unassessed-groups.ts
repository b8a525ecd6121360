/**
 * The producers a PR changes that could not be rendered (clusters[].unassessed), as every
 * report lists them: one row each, and grouped by cause (the side they failed on, and why:
 * the host or source of their unavailable chart, or their reason), so that seventy
 * releases behind one registry are one line that still says they were not assessed.
 */
import {
  type AnalysisError,
  type AnalysisResult,
  type UnassessedProducer,
  producerKey,
} from '../model/index.js';
import { type CauseGroup, type ErrorCause, errorCause, groupByCause } from './error-causes.js';

/** An unassessed producer with its cluster. */
export interface UnassessedRow extends UnassessedProducer {
  cluster: string;
}

export function unassessedRows(result: AnalysisResult): UnassessedRow[] {
  return result.clusters.flatMap((c) =>
    (c.unassessed ?? []).map((u) => ({ ...u, cluster: c.name })),
  );
}

/** Where the producer could not be rendered, in words: `at head`, `at base and head`. */
export function unassessedSide(side: UnassessedProducer['side']): string {
  return side === 'both' ? 'at base and head' : `at ${side}`;
}

const errorKey = (cluster: string, producer: AnalysisError['producer']) =>
  `${cluster}\n${producerKey(producer)}`;

/**
 * The cause of each row: the cause of its producer's error (head's first, base's when it
 * failed at base only) when the result has one, its reason otherwise (a producer that was
 * skipped has no error). The side is part of the cause: "at head" and "at base and head"
 * say different things about the PR.
 */
function causes(result: AnalysisResult): (row: UnassessedRow) => ErrorCause {
  const first = new Map<string, AnalysisError>();
  const ordered = [...result.errors].sort(
    (a, b) => Number(a.side === 'base') - Number(b.side === 'base'),
  );
  for (const error of ordered) {
    const key = errorKey(error.cluster, error.producer);
    if (!first.has(key)) first.set(key, error);
  }
  return (row) => {
    const error = first.get(errorKey(row.cluster, row.producer));
    const cause = error === undefined ? undefined : errorCause(error);
    const label =
      cause === undefined
        ? row.reason
        : error?.code === undefined
          ? `${row.reason}: ${cause.label}`
          : cause.label;
    return {
      key: `${row.side}\n${row.reason}\n${cause?.key ?? ''}`,
      label,
    };
  };
}

/** The rows grouped by side and cause, biggest group first. */
export function unassessedGroups(result: AnalysisResult): Array<CauseGroup<UnassessedRow>> {
  return groupByCause(unassessedRows(result), causes(result));
}
