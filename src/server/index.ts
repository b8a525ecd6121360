/**
 * HTTP intake: GitHub webhooks, the re-render API, stored results and reports, health and
 * metrics. It enqueues and reads; it never renders, never calls GitHub directly (write-backs
 * arrive injected) and never reads process.env.
 */
export { buildServer } from './build-server.js';
export { buildHealthServer, type HealthServerDeps } from './health-server.js';
export { jobForEvent } from './job-for-event.js';
export { createMetricsRegistry } from './metrics.js';
export type { MetricsRegistryOptions } from './metrics.js';
export type * from './types.js';
export { resyncOpenPulls, startResync, type ResyncDeps, type ResyncSummary } from './resync.js';
