/**
 * The result of one analysis (PR base vs head): what every report renders and what the
 * service stores. Everything in it is redacted and deterministic except `timings`.
 */
import type { DiffSummary, ResourceChange } from './change.js';
import type { RenderError } from './render.js';
import type { Finding, Verdict } from './finding.js';

export const ANALYSIS_SCHEMA_VERSION = 1;

export interface RevisionRef {
  /** What the user asked for (`main`, `HEAD`, a SHA). */
  rev: string;
  sha: string;
}

export interface AnalysisError extends RenderError {
  cluster: string;
  side: 'base' | 'head';
  /** A head error whose producer rendered at base (or is new). */
  introduced: boolean;
}

export interface ClusterSummary extends DiffSummary {
  name: string;
  path: string;
}

export interface AnalysisResult {
  schemaVersion: typeof ANALYSIS_SCHEMA_VERSION;
  base: RevisionRef;
  head: RevisionRef;
  verdict: Verdict;
  /** Counts over all clusters. */
  summary: { added: number; removed: number; changed: number; moved: number; findings: number };
  clusters: ClusterSummary[];
  /** Sorted: cluster, then most risky first, then id. */
  changes: ResourceChange[];
  /** Sorted: danger first, then caution, info; then cluster, resource. */
  findings: Finding[];
  errors: AnalysisError[];
  /** Where the full report lives, when known (the service sets it). */
  reportUrl?: string;
  /** Milliseconds per step; the only non-deterministic part. */
  timings: Record<string, number>;
}
