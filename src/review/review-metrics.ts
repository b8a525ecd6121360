/** The worker's Prometheus metrics, on the registry it is given (never the global one). */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ForgeName } from '../model/index.js';
import type { ReviewMetrics } from './types.js';

const BUCKETS_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Counts GitHub's answers by HTTP status, for the client's onResponse. */
export function createGitHubCallCounter(registry: Registry): (status: string) => void {
  const calls = new Counter({
    name: 'fluxlens_github_requests_total',
    help: 'HTTP requests to the GitHub API by the status of the answer (error: none came).',
    labelNames: ['status'],
    registers: [registry],
  });
  return (status) => calls.inc({ status });
}

export function createReviewMetrics(registry: Registry): ReviewMetrics {
  const durations = new Histogram({
    name: 'fluxlens_review_stage_duration_seconds',
    help: 'Duration of each stage of a review: fetch, render-base, render-head, diff, publish, total.',
    labelNames: ['stage', 'forge'],
    buckets: BUCKETS_SECONDS,
    registers: [registry],
  });
  const renderErrors = new Counter({
    name: 'fluxlens_render_errors_total',
    help: 'Producers that failed to render at the head of a reviewed pull request.',
    labelNames: ['forge'],
    registers: [registry],
  });
  // GitHub's series keep the labels they always had; another forge's say which it is.
  const forgeLabel = (forge: ForgeName | undefined) =>
    forge === undefined || forge === 'github' ? {} : { forge };
  return {
    stage: (stage, ms, forge) => durations.observe({ stage, ...forgeLabel(forge) }, ms / 1000),
    renderErrors: (count, forge) => renderErrors.inc(forgeLabel(forge), count),
  };
}
