/**
 * From the service's settings to the job processor both queues run: the same review for
 * `fluxlens serve` with its inline queue and for `fluxlens worker` on Redis.
 */
import { createHash } from 'node:crypto';
import type { ServiceConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Registry } from 'prom-client';
import { queueDefaults, type JobProcessor, type ResultStore } from '../queue/index.js';
import { createToolRunner } from '../tool-runner.js';
import { reviewPullRequest } from './review-pull-request.js';
import { reviewRange } from './review-range.js';
import { renderEntryJob } from './render-entry-job.js';
import { createReviewMetrics } from './review-metrics.js';
import type { ReviewDeps, ReviewGitHub, ReviewSettings } from './types.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface ReviewProcessorDeps {
  config: ServiceConfig;
  /** Absent in a deployment that serves only other forges. */
  github?: ReviewGitHub | undefined;
  /** The forges besides GitHub that jobs may name. */
  forges?: ReviewDeps['forges'];
  results: ResultStore;
  logger: Logger;
  /** Where the review's metrics go (see createReviewMetrics); none without. */
  registry?: Registry;
  /** The attempts the queue makes; the last one reports failures. The queue's default. */
  attempts?: number;
}

export function createReviewProcessor(deps: ReviewProcessorDeps): JobProcessor {
  const { config } = deps;
  const runner = createToolRunner(config);
  const settings = reviewSettings(config, deps.attempts ?? queueDefaults.attempts);
  const metrics = deps.registry ? createReviewMetrics(deps.registry) : undefined;
  const reviewDeps = {
    ...(deps.github ? { github: deps.github } : {}),
    ...(deps.forges ? { forges: deps.forges } : {}),
    runner,
    machine: config,
    results: deps.results,
    settings,
    logger: deps.logger,
    ...(metrics ? { metrics } : {}),
  };
  return (job, ctx) => {
    if ('render' in job) return renderEntryJob(job, ctx, reviewDeps);
    if ('range' in job) return reviewRange(job, ctx, reviewDeps);
    return reviewPullRequest(job, ctx, reviewDeps);
  };
}

function reviewSettings(config: ServiceConfig, attempts: number): ReviewSettings {
  const signingKey = reportSigningKey(config);
  return {
    mode: config.github.auth?.kind === 'token' ? 'token' : 'app',
    comment: config.comment,
    renderForks: config.renderForks,
    offline: config.offline,
    gitUrl: config.github.gitUrl,
    cacheDir: config.cacheDir,
    attempts,
    ...(config.publicUrl !== undefined && signingKey !== undefined
      ? {
          reportLink: {
            publicUrl: config.publicUrl,
            signingKey,
            validForMs: config.reportLinkDays * DAY_MS,
          },
        }
      : {}),
  };
}

/**
 * The key of signed report links: the configured one, else one derived from the webhook
 * secret (so one secret is enough), never the secret itself.
 */
export function reportSigningKey(config: ServiceConfig): string | undefined {
  if (config.reportSigningKey !== undefined) return config.reportSigningKey;
  if (config.webhookSecret === undefined) return undefined;
  return createHash('sha256')
    .update('fluxlens report links\0')
    .update(config.webhookSecret)
    .digest('hex');
}
