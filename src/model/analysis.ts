/**
 * The result of one analysis (PR base vs head): what every report renders and what the
 * service stores. Everything in it is redacted and deterministic except `timings`.
 */
import type { DiffSummary, ResourceChange } from './change.js';
import type { ProducerRef, RenderError } from './render.js';
import type { Finding, Verdict } from './finding.js';

export const ANALYSIS_SCHEMA_VERSION = 1;

export interface RevisionRef {
  /** What the user asked for (`main`, `HEAD`, a SHA). */
  rev: string;
  sha: string;
}

/** Who acknowledged which findings (by findingId), and when. */
export interface Acknowledgement {
  /** The GitHub login that pressed the check run's button. */
  by: string;
  /** ISO time the acknowledgement was given. */
  at: string;
  /** findingId of each finding acknowledged, sorted. */
  findings: string[];
  /** The head it was given on, when it carried over from there (policy `acknowledgements: carry`). */
  carriedFrom?: string;
}

export interface AnalysisError extends RenderError {
  cluster: string;
  side: 'base' | 'head';
  /**
   * A content error at head whose producer rendered at base (or is new); never one of
   * unavailability (isUnavailable), which makes the producer unassessed instead.
   */
  introduced: boolean;
}

/**
 * A producer the PR changes that could not be rendered, for unavailability (see
 * isUnavailable), on one side or both: nothing about it was judged. "Changes" means its
 * own object (as its parent renders it) differs, it exists on one side only, or it fails
 * on one side and renders on the other.
 */
export interface UnassessedProducer {
  producer: ProducerRef;
  side: 'base' | 'head' | 'both';
  /** Short and stable, e.g. `chart unavailable`; the errors list has the messages. */
  reason: string;
}

export interface ClusterSummary extends DiffSummary {
  name: string;
  path: string;
  /** Sorted by producer. Set on every analysis; absent only in results stored before it. */
  unassessed?: UnassessedProducer[];
  /**
   * Set when nothing in the repository applies the cluster's folder, so the render applied
   * it as `flux bootstrap` does (Producer.byConvention): on which sides.
   */
  bootstrapAssumed?: 'base' | 'head' | 'both';
}

/**
 * Every file the PR changes, in exactly one list: read by a producer whose output was
 * diffed (at base or head, in any cluster), left out of the repository's artifact by an
 * ignore rule, or read by nothing fluxlens renders.
 */
export interface ChangedFiles {
  read: string[];
  /** The rule that leaves each out: its pattern, and where it is written (IgnoreRule.from). */
  excluded: Array<{ path: string; pattern: string; from: string }>;
  unread: string[];
  /**
   * With `unread`: the producers that were not rendered (skipped, or failed), so what they
   * read is unknown; one of them may read those files. Sorted by producer; absent when
   * `unread` is empty or every producer rendered.
   */
  unrendered?: Array<{ producer: ProducerRef; reason: string }>;
  /** Set when a render could not say what it read (flux-local): how `read` was told instead. */
  approximated?: string;
}

export interface AnalysisVerdict extends Verdict {
  /**
   * How many changed producers were not assessed (clusters[].unassessed). While any is,
   * the level is at least caution, nothing is routine and the check run is not `success`.
   */
  unassessed?: number;
  /**
   * How many changed files nothing fluxlens renders reads (files.unread). While any is, the
   * level is at least info, nothing is routine and the headline says so.
   */
  unread?: number;
}

export interface AnalysisResult {
  schemaVersion: typeof ANALYSIS_SCHEMA_VERSION;
  base: RevisionRef;
  head: RevisionRef;
  verdict: AnalysisVerdict;
  /** Counts over all clusters. */
  summary: { added: number; removed: number; changed: number; moved: number; findings: number };
  clusters: ClusterSummary[];
  /** Sorted: cluster, then most risky first, then id. */
  changes: ResourceChange[];
  /** Sorted: danger first, then caution, info; then cluster, resource. */
  findings: Finding[];
  errors: AnalysisError[];
  /** The changed files accounted for; absent only in results stored before it. */
  files?: ChangedFiles;
  /** Where the full report lives, when known (the service sets it). */
  reportUrl?: string;
  /**
   * Someone with write access acknowledged the findings that fail the check (the check
   * run's requested action): the check is then neutral. The service sets it.
   */
  acknowledgement?: Acknowledgement;
  /** Milliseconds per step; the only non-deterministic part. */
  timings: Record<string, number>;
}
