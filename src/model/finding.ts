/** Findings and verdicts: what the risk step says about a change. */
import { z } from 'zod';
import type { ProducerRef } from './render.js';

export type Level = 'info' | 'caution' | 'danger';
export type LevelOrNone = 'none' | Level;
export const LEVELS: readonly Level[] = ['info', 'caution', 'danger'];

/**
 * The level at which a finding fails a review (the CLI's exit code, the check run's
 * conclusion); `never` fails none. The policy's `failOn`, `--fail-on` and the Action's
 * `fail-on` input all take these words.
 */
export const FailOn = z.enum([...LEVELS, 'never']);
export type FailOn = z.infer<typeof FailOn>;
export const FAIL_ON = FailOn.options;

const LEVEL_RANK: Record<LevelOrNone, number> = { none: 0, info: 1, caution: 2, danger: 3 };

/** none < info < caution < danger, as numbers to compare and take the maximum of. */
export function levelRank(level: LevelOrNone): number {
  return LEVEL_RANK[level];
}

/** The higher of two levels. */
export function maxLevel<T extends LevelOrNone>(a: T, b: T): T {
  return LEVEL_RANK[b] > LEVEL_RANK[a] ? b : a;
}

export interface Finding {
  /** Stable kebab-case rule id (see docs/rules.md). */
  rule: string;
  level: Level;
  cluster: string;
  resource: { kind: string; namespace?: string; name: string };
  producer?: ProducerRef;
  /** What will happen in the cluster, in plain words; never a Secret value. */
  message: string;
  file?: string;
  line?: number;
  /**
   * What the rule read when it was not the rendered objects: `values`, a HelmRelease's own
   * spec.values, because its chart could not be rendered (the finding is "from values, not
   * rendered": what the chart makes of them is not known). Absent for the rendered objects.
   */
  basis?: 'values';
}

export interface Verdict {
  level: LevelOrNone;
  /** One line in plain words, e.g. "Deletes a PersistentVolumeClaim (data loss)". */
  headline: string;
  /** Only image tags, digests and chart versions changed, and no finding above info. */
  routine: boolean;
  counts: Record<Level, number>;
}
