/**
 * A check run's parts as GitHub's check-run API takes them: report/ renders them from an
 * analysis, github/ sends them, review/ passes them from one to the other.
 */

export type CheckRunConclusion = 'success' | 'neutral' | 'failure' | 'skipped' | 'cancelled';

/** An annotation as GitHub's check-run API takes it. */
export interface CheckRunAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  start_column?: number;
  end_column?: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
  raw_details?: string;
}

export interface CheckRunOutput {
  title: string;
  summary: string;
  text?: string;
  /** Any number: they are sent 50 per request, as GitHub requires. */
  annotations?: readonly CheckRunAnnotation[];
}

/**
 * The identifier of the failing check run's "Acknowledge findings" button: review/ offers
 * it, and the server knows the check_run event of its press by it.
 */
export const ACKNOWLEDGE_ACTION_ID = 'acknowledge';
