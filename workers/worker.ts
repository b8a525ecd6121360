/**
 * `fluxlens worker`: takes reviews from Redis and runs them, any number of them on any
 * number of machines. It only wires: what serve builds too (service.ts), the Redis queue,
 * and a small HTTP endpoint for Prometheus, liveness and readiness, up before Redis answers, so that a
 * Redis still starting does not fail liveness; SIGTERM lets running reviews finish first.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { CredentialWatch } from '../src/github/index.js';
import {
  createRedisQueue,
  type RedisEndpoint,
  type RedisQueue,
  startRedisWorker,
} from '../src/queue/index.js';
import { FLUXLENS_VERSION } from '../src/version.js';
import { type ProcessIO, runProcess, startService, stopRequested } from './service.js';

/** Runs until `shutdown`; the exit code is 2 for a setup problem, 1 for anything else. */
export function main(io: ProcessIO): Promise<number> {
  return runProcess('fluxlens worker', io, () => runWorker(io));
}

async function runWorker(io: ProcessIO): Promise<void> {
  const service = startService('worker', io);
  const { config, logger, registry, credentials } = service;
  const redis: RedisEndpoint = { url: config.redisUrl ?? '' };
  if (config.redisCa !== undefined) redis.ca = config.redisCa;
  const queue = createRedisQueue({
    connection: redis,
    prefix: config.redisPrefix,
    ...(config.resultTtlSeconds === undefined ? {} : { resultTtlSeconds: config.resultTtlSeconds }),
    logger,
  });
  const readiness = () => workerReadiness(queue, credentials);
  const endpoint =
    config.metricsPort > 0 ? await serveHealth(registry, config.metricsPort, readiness) : undefined;
  // Waits for Redis for as long as it takes; /healthz answers meanwhile, /readyz says why not.
  const worker = await startRedisWorker({
    connection: redis,
    prefix: config.redisPrefix,
    concurrency: config.workerConcurrency,
    graceMs: config.shutdownGraceMs,
    lockDurationMs: config.workerLockMs,
    stalledIntervalMs: config.workerLockMs,
    logger,
    processor: service.reviewProcessor(queue.results),
  });
  logger.info({ concurrency: config.workerConcurrency }, 'worker started');
  await stopRequested(io);
  logger.info({}, 'worker stopping: running reviews get the grace period to finish');
  await worker.close();
  credentials.stop();
  await queue.close();
  await new Promise<void>((resolve) => (endpoint ? endpoint.close(() => resolve()) : resolve()));
}

interface Readiness {
  ok: boolean;
  checks: { redis: boolean; github: boolean };
  /** What is missing, in a few words; never a credential. */
  reason?: string;
}

/** Ready when Redis answers and GitHub has not refused the credentials. */
async function workerReadiness(
  queue: RedisQueue,
  credentials: CredentialWatch,
): Promise<Readiness> {
  const redis = await queue.ping();
  const rejection = credentials.rejection();
  const checks = { redis, github: rejection === undefined };
  const reasons = [...(redis ? [] : ['Redis does not answer']), ...(rejection ? [rejection] : [])];
  return reasons.length === 0
    ? { ok: true, checks }
    : { ok: false, checks, reason: reasons.join('; ') };
}

/** /metrics (Prometheus text), /healthz and /readyz (JSON, 503 when not ready); nothing else. */
async function serveHealth(
  registry: Registry,
  port: number,
  readiness: () => Promise<Readiness>,
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else if (req.method === 'GET' && req.url === '/healthz') {
      const health = JSON.stringify({ status: 'ok', version: FLUXLENS_VERSION });
      res.writeHead(200, { 'content-type': 'application/json' }).end(health);
    } else if (req.method === 'GET' && req.url === '/readyz') {
      readiness().then(
        (ready) =>
          res
            .writeHead(ready.ok ? 200 : 503, { 'content-type': 'application/json' })
            .end(JSON.stringify(ready)),
        () => res.writeHead(503).end(),
      );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return server;
}
