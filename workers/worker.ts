/**
 * `fluxlens worker`: takes reviews from Redis and runs them, any number of them on any
 * number of machines. It only wires: what serve builds too (service.ts), the Redis queue,
 * and serve's /metrics, /healthz and /readyz routes on a port of their own, up before Redis
 * answers, so that a Redis still starting does not fail liveness; SIGTERM lets running
 * reviews finish first.
 */
import type { FastifyInstance } from 'fastify';
import type { CredentialWatch } from '../src/github/index.js';
import {
  createRedisQueue,
  type RedisEndpoint,
  type RedisQueue,
  startRedisWorker,
} from '../src/queue/index.js';
import { buildHealthServer, type Readiness } from '../src/server/index.js';
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
  const health = buildHealthServer({ logger, registry, readiness });
  if (config.metricsPort > 0) await listenEverywhere(health, config.metricsPort);
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
  credentials?.stop();
  await queue.close();
  await health.close();
}

/** Ready when Redis answers and GitHub has not refused the credentials. */
async function workerReadiness(
  queue: RedisQueue,
  credentials: CredentialWatch | undefined,
): Promise<Readiness> {
  const redis = await queue.ping();
  const rejection = credentials?.rejection();
  const checks = { redis, github: rejection === undefined };
  const reasons = [...(redis ? [] : ['Redis does not answer']), ...(rejection ? [rejection] : [])];
  return reasons.length === 0
    ? { ok: true, checks }
    : { ok: false, checks, reason: reasons.join('; ') };
}

/**
 * On every interface, as Node listens without an address (IPv6 and IPv4 where the kernel
 * has IPv6, IPv4 alone where not); fastify's listen would need one address to bind.
 */
async function listenEverywhere(app: FastifyInstance, port: number): Promise<void> {
  await app.ready();
  await new Promise<void>((resolve) => app.server.listen(port, resolve));
}
