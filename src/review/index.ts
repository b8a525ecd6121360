/**
 * review/ runs one queued review end to end: fetch, analyze, report, publish. It decides in
 * one place whether a failure is retried, given up and reported, or dropped as cancelled.
 * It must not parse webhooks, read the environment or know which queue runs it.
 */
export {
  ACKNOWLEDGE_ACTION,
  CHECK_RUN_NAME,
  COMMENT_MARKER,
  stickyCommentBody,
} from './publish.js';
export type {
  ReviewDeps,
  ReviewForge,
  ReviewGitHub,
  ReviewMetrics,
  ReviewSettings,
  ReviewStage,
} from './types.js';
export { createReviewProcessor, reportSigningKey } from './create-review-processor.js';
export { forgeClientFor } from './forge-for.js';
export type { ReviewProcessorDeps } from './create-review-processor.js';
export { createGitHubCallCounter } from './review-metrics.js';
export { acknowledgeCommand, reportSkipped } from './report-skipped.js';
