/**
 * The server's Prometheus metrics, registered on a registry of the app's own: never the
 * global default, so two apps (or a server and a worker) in one process do not collide.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '../logger.js';
import type { ForgeName } from '../model/index.js';
import type { EnqueueOutcome, QueueDepth } from '../queue/index.js';
import type { RejectionReason } from './http-error.js';

export interface MetricsRegistryOptions {
  /** Process metrics (CPU, memory, event loop): once per process, on one registry. */
  processMetrics?: boolean;
}

export function createMetricsRegistry(options: MetricsRegistryOptions = {}): Registry {
  const registry = new Registry();
  if (options.processMetrics === true) collectDefaultMetrics({ register: registry });
  return registry;
}

export type DeliveryOutcome =
  | 'enqueued'
  | 'coalesced'
  | 'rate-limited'
  | 'cancelled'
  | 'skipped'
  | 'ignored'
  | 'acknowledged'
  | 'ping'
  | 'redelivery'
  | 'invalid'
  | 'failed';

/** Events we name in labels; any other name is counted as `other` to bound label values. */
const KNOWN_EVENTS = new Set([
  'ping',
  'pull_request',
  'check_run',
  'check_suite',
  'issue_comment',
  'installation',
  'installation_repositories',
]);

export interface ServerMetrics {
  /** `forge` labels deliveries of forges other than GitHub; GitHub's series stay as they are. */
  delivery(event: string, outcome: DeliveryOutcome, forge?: ForgeName): void;
  rejection(reason: RejectionReason): void;
  /** What the queue made of one review request (webhook, command, API). */
  request(outcome: EnqueueOutcome['status']): void;
}

const DEPTH_STATES = [
  'waiting',
  'active',
  'delayed',
  'failed',
] as const satisfies readonly (keyof QueueDepth)[];

export function registerServerMetrics(
  registry: Registry,
  depth: () => Promise<QueueDepth>,
  logger: Logger,
): ServerMetrics {
  const deliveries = new Counter({
    name: 'fluxlens_webhook_deliveries_total',
    help: 'Webhook deliveries by event and what the server did with them.',
    labelNames: ['event', 'outcome', 'forge'] as const,
    registers: [registry],
  });
  const rejections = new Counter({
    name: 'fluxlens_http_rejections_total',
    help: 'Requests refused before any work: bad signature, oversized, bad token.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const requests = new Counter({
    name: 'fluxlens_review_requests_total',
    help: 'Review requests by what the queue made of them: queued, replaced, coalesced, duplicate.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'fluxlens_queue_depth',
    help: 'Review jobs in the queue by state, read at scrape time.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      // A queue that does not answer leaves no stale numbers behind; readyz reports it.
      this.reset();
      try {
        const current = await depth();
        for (const state of DEPTH_STATES) this.set({ state }, current[state]);
      } catch (err) {
        logger.warn({ err }, 'queue depth unavailable');
      }
    },
  });
  return {
    delivery: (event, outcome, forge) =>
      deliveries.inc({
        event: KNOWN_EVENTS.has(event) ? event : 'other',
        outcome,
        ...(forge === undefined || forge === 'github' ? {} : { forge }),
      }),
    rejection: (reason) => rejections.inc({ reason }),
    request: (outcome) => requests.inc({ outcome }),
  };
}
