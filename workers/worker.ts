/**
 * `fluxlens worker`: takes reviews from Redis and runs them, any number of them on any
 * number of machines. It only wires: config, logger, GitHub, queue, review, and a small
 * HTTP endpoint for Prometheus and liveness; SIGTERM lets running reviews finish first.
 */
import { createServer, type Server } from 'node:http';
import { availableParallelism } from 'node:os';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { loadServiceConfig } from '../src/config.js';
import { classify, errorMessage } from '../src/errors.js';
import { checkCredentials, githubFromConfig } from '../src/github/index.js';
import { createLogger } from '../src/logger.js';
import { createRedisQueue, startRedisWorker } from '../src/queue/index.js';
import { createGitHubCallCounter, createReviewProcessor } from '../src/review/index.js';
import { FLUXLENS_VERSION } from '../src/version.js';

export interface WorkerIO {
  env: NodeJS.ProcessEnv;
  stderr: (text: string) => void;
  /** Aborts when the process is asked to stop. */
  shutdown: AbortSignal;
}

/** Runs until `shutdown`; the exit code is 2 for a setup problem, 1 for anything else. */
export async function main(io: WorkerIO): Promise<number> {
  try {
    await runWorker(io);
    return 0;
  } catch (err) {
    io.stderr(`fluxlens worker: ${errorMessage(err)}\n`);
    return classify(err) === 'setup' || classify(err) === 'usage' ? 2 : 1;
  }
}

async function runWorker(io: WorkerIO): Promise<void> {
  const config = loadServiceConfig('worker', io.env, { cpuCount: availableParallelism() });
  const redisUrl = config.redisUrl ?? '';
  const logger = createLogger({ level: config.logLevel });
  logger.info({ version: FLUXLENS_VERSION, node: process.version }, 'fluxlens worker starting');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const github = githubFromConfig(config, logger, createGitHubCallCounter(registry));
  void checkCredentials(github, logger);
  const queue = createRedisQueue({ connection: redisUrl, prefix: config.redisPrefix, logger });
  const worker = await startRedisWorker({
    connection: redisUrl,
    prefix: config.redisPrefix,
    concurrency: config.workerConcurrency,
    graceMs: config.shutdownGraceMs,
    lockDurationMs: config.workerLockMs,
    stalledIntervalMs: config.workerLockMs,
    logger,
    processor: createReviewProcessor({ config, github, results: queue.results, logger, registry }),
  });
  const endpoint =
    config.metricsPort > 0 ? await serveMetrics(registry, config.metricsPort) : undefined;
  logger.info({ concurrency: config.workerConcurrency }, 'worker started');
  await new Promise<void>((resolve) => {
    if (io.shutdown.aborted) resolve();
    io.shutdown.addEventListener('abort', () => resolve(), { once: true });
  });
  logger.info({}, 'worker stopping: running reviews get the grace period to finish');
  await worker.close();
  await queue.close();
  await new Promise<void>((resolve) => (endpoint ? endpoint.close(() => resolve()) : resolve()));
}

/** /metrics (Prometheus text) and /healthz; nothing else is answered. */
async function serveMetrics(registry: Registry, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    } else if (req.method === 'GET' && req.url === '/healthz') {
      const health = JSON.stringify({ status: 'ok', version: FLUXLENS_VERSION });
      res.writeHead(200, { 'content-type': 'application/json' }).end(health);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, resolve));
  return server;
}
