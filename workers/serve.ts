/**
 * `fluxlens serve`: the webhook server. With FLUXLENS_REDIS_URL it only takes deliveries
 * in and `fluxlens worker` processes review them; without, an inline queue and worker run
 * in this process with the same semantics. It wires and waits; the parts live in src/.
 * Its help is the CLI's (`fluxlens serve --help`), as the worker's is.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { classify, errorMessage } from '../src/errors.js';
import { loadServiceConfig, type ServiceConfig } from '../src/config.js';
import { githubFromConfig, watchCredentials, type GitHubClient } from '../src/github/index.js';
import { createLogger, type Logger } from '../src/logger.js';
import {
  createInlineQueue,
  createRedisQueue,
  type DeliveryLedger,
  type JobQueue,
  type ResultStore,
} from '../src/queue/index.js';
import { parseAnalysisResult, renderHtml } from '../src/report/index.js';
import {
  acknowledgeCommand,
  createGitHubCallCounter,
  createReviewProcessor,
  reportSigningKey,
  reportSkipped,
} from '../src/review/index.js';
import { buildServer, createMetricsRegistry, startResync } from '../src/server/index.js';
import { FLUXLENS_VERSION } from '../src/version.js';

interface Intake {
  queue: JobQueue;
  deliveries: DeliveryLedger;
  results: ResultStore;
  close(): Promise<void>;
}

export interface ServeIO {
  env: NodeJS.ProcessEnv;
  stderr: (text: string) => void;
  /** Aborts when the process is asked to stop. */
  shutdown: AbortSignal;
}

/** Runs until `shutdown`; the exit code is 2 for a setup problem, 1 for anything else. */
export async function main(io: ServeIO): Promise<number> {
  try {
    return await runServe(io);
  } catch (err) {
    io.stderr(`fluxlens: ${errorMessage(err)}\n`);
    return classify(err) === 'setup' || classify(err) === 'usage' ? 2 : 1;
  }
}

async function runServe(io: ServeIO): Promise<number> {
  const config = loadServiceConfig('server', io.env, { cpuCount: availableParallelism() });
  const logger = createLogger({ level: config.logLevel });
  logger.info({ version: FLUXLENS_VERSION, node: process.version }, 'fluxlens serve starting');
  const registry = createMetricsRegistry({ processMetrics: true });
  const github = githubFromConfig(config, logger, createGitHubCallCounter(registry));
  const credentials = watchCredentials(github, logger);
  const intake = config.redisUrl
    ? redisIntake(config, config.redisUrl, logger)
    : inlineIntake(config, logger, github, registry);
  const mode = config.github.auth?.kind === 'token' ? 'token' : 'app';
  const app = buildServer({
    logger,
    ...intake,
    ...(config.webhookSecret !== undefined ? { webhookSecret: config.webhookSecret } : {}),
    insecureNoWebhookSecret: config.insecureNoWebhookSecret,
    bodyTimeoutMs: config.webhookBodyTimeoutMs,
    largeBodySlots: config.webhookLargeBodies,
    ...optional('commandBots', config.commandBots),
    // Our own comments quote the command; once GitHub has said who we are, they never count.
    ownLogin: () => credentials.login(),
    ...(config.apiToken !== undefined ? { apiToken: config.apiToken } : {}),
    rateLimits: config.rateLimits,
    ...optional('reportSigningKey', reportSigningKey(config)),
    ...optional('publicUrl', config.publicUrl),
    renderDrafts: config.renderDrafts,
    renderForks: config.renderForks,
    ...optional('repositoryAllowlist', config.repositories),
    ...(config.github.auth?.kind === 'app' ? { appId: Number(config.github.auth.appId) } : {}),
    metrics: registry,
    credentialRejection: () => credentials.rejection(),
    renderReportHtml: (json) => renderHtml(parseAnalysisResult(json)),
    skipCheck: (info) => reportSkipped(github, { mode, comment: config.comment }, info),
    react: (info) => acknowledgeCommand(github, info),
  });
  await app.listen({ port: config.port, host: config.host });
  const resync =
    config.resyncIntervalMs > 0
      ? startResync(
          {
            github,
            queue: intake.queue,
            results: intake.results,
            logger,
            renderDrafts: config.renderDrafts,
            renderForks: config.renderForks,
            ...optional(
              'repositories',
              config.repositories?.map((r) => r.toLowerCase()),
            ),
          },
          config.resyncIntervalMs,
        )
      : undefined;
  await waitFor(io.shutdown);
  logger.info({}, 'shutting down');
  resync?.stop();
  credentials.stop();
  await app.close();
  await intake.close();
  return 0;
}

function redisIntake(config: ServiceConfig, url: string, logger: Logger): Intake {
  const queue = createRedisQueue({
    connection: { url, ...optional('ca', config.redisCa) },
    prefix: config.redisPrefix,
    ...optional('resultTtlSeconds', config.resultTtlSeconds),
    logger,
  });
  logger.info({ queue: 'redis' }, 'reviews are queued in Redis for fluxlens worker processes');
  return { queue, deliveries: queue, results: queue.results, close: () => queue.close() };
}

function inlineIntake(
  config: ServiceConfig,
  logger: Logger,
  github: GitHubClient,
  registry: ReturnType<typeof createMetricsRegistry>,
): Intake {
  const queue = createInlineQueue({
    resultDir: join(config.cacheDir, 'results'),
    ...optional('resultTtlSeconds', config.resultTtlSeconds),
    logger,
  });
  queue.startWorker({
    concurrency: config.workerConcurrency,
    graceMs: config.shutdownGraceMs,
    logger,
    processor: createReviewProcessor({ config, github, results: queue.results, logger, registry }),
  });
  logger.info(
    { queue: 'inline' },
    'FLUXLENS_REDIS_URL is not set: reviews run in this process on an inline queue',
  );
  return { queue, deliveries: queue, results: queue.results, close: () => queue.close() };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function waitFor(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}
