/**
 * A server wired to the fakes, a fixed clock and a log captured in memory, plus helpers
 * to deliver a signed webhook through app.inject.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Registry } from 'prom-client';
import { createLogger } from '../../../../src/logger.js';
import {
  type ReactInfo,
  type ServerDeps,
  type SkipInfo,
  buildServer,
  createMetricsRegistry,
} from '../../../../src/server/index.js';
import { FakeLedger, FakeQueue, FakeResults } from './fake-queue.js';
import { type Payload, signBody } from './github-examples.js';
import { CHECK_RUN_NAME } from '../../../../src/review/index.js';

export const WEBHOOK_SECRET = 'webhook-secret-for-tests-7d1f';
export const API_TOKEN = 'api-token-for-tests-93ac';
export const SIGNING_KEY = 'report-signing-key-for-tests-51be';
export const NOW = new Date('2024-05-01T12:00:00Z');

export interface TestServer {
  app: FastifyInstance;
  queue: FakeQueue;
  ledger: FakeLedger;
  results: FakeResults;
  registry: Registry;
  skipped: SkipInfo[];
  reactions: ReactInfo[];
  /** Every JSON log line the app wrote. */
  logs: string[];
}

export function testServer(overrides: Partial<ServerDeps> = {}): TestServer {
  const logs: string[] = [];
  const queue = new FakeQueue();
  const ledger = new FakeLedger();
  const results = new FakeResults();
  const registry = createMetricsRegistry();
  const skipped: SkipInfo[] = [];
  const reactions: ReactInfo[] = [];
  const app = buildServer({
    logger: createLogger({ level: 'debug', destination: { write: (line) => logs.push(line) } }),
    queue,
    deliveries: ledger,
    results,
    webhookSecret: WEBHOOK_SECRET,
    renderDrafts: false,
    renderForks: false,
    checkRunName: CHECK_RUN_NAME,
    clock: () => NOW,
    metrics: registry,
    skipCheck: async (info) => void skipped.push(info),
    react: async (info) => void reactions.push(info),
    ...overrides,
  });
  return { app, queue, ledger, results, registry, skipped, reactions, logs };
}

let deliveries = 0;

export interface DeliverOptions {
  deliveryId?: string;
  secret?: string;
  /** Overrides the computed signature; null sends none. */
  signature?: string | null;
  contentType?: string;
  /** Sent instead of the JSON of the payload. */
  rawBody?: string;
}

/** Delivers a webhook the way GitHub does: JSON body, signature over its bytes. */
export function deliver(
  app: FastifyInstance,
  event: string | null,
  payload: Payload,
  options: DeliverOptions = {},
): Promise<LightMyRequestResponse> {
  const body = options.rawBody ?? JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
    'user-agent': 'GitHub-Hookshot/test',
    'x-github-delivery': options.deliveryId ?? `delivery-${++deliveries}-${process.pid}`,
  };
  if (event !== null) headers['x-github-event'] = event;
  const signature =
    options.signature === undefined
      ? signBody(options.secret ?? WEBHOOK_SECRET, body)
      : options.signature;
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  return app.inject({ method: 'POST', url: '/webhooks/github', headers, payload: body });
}

/** The value of one sample in the app's Prometheus text, 0 when absent. */
export async function metricValue(app: FastifyInstance, sample: string): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}
