/**
 * `fluxlens serve`: the webhook server. With FLUXLENS_REDIS_URL it only takes deliveries
 * in and `fluxlens worker` processes review them; without, an inline queue and worker run
 * in this process with the same semantics. It wires and waits; the parts live in src/.
 * Its help is the CLI's (`fluxlens serve --help`), as the worker's is.
 */
import { join } from 'node:path';
import type { ServiceConfig } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import { optional } from '../src/model/index.js';
import {
  createInlineQueue,
  createRedisQueue,
  type DeliveryLedger,
  type JobQueue,
  type PullRef,
  type ResultStore,
} from '../src/queue/index.js';
import { GitHubError, type GitHubClient } from '../src/github/index.js';
import {
  parseAnalysisResult,
  renderHtml,
  renderMarkdown,
  renderReviewsPage,
} from '../src/report/index.js';
import { RULES } from '../src/risk/index.js';
import {
  acknowledgeCommand,
  CHECK_RUN_NAME,
  forgeClientFor,
  reportSigningKey,
  reportSkipped,
  type ReviewDeps,
} from '../src/review/index.js';
import { buildServer, type Installation, startResync } from '../src/server/index.js';
import {
  type ProcessIO,
  runProcess,
  type Service,
  startService,
  stopRequested,
} from './service.js';

interface Intake {
  queue: JobQueue;
  deliveries: DeliveryLedger;
  results: ResultStore;
  close(): Promise<void>;
}

/** Runs until `shutdown`; the exit code is 2 for a setup problem, 1 for anything else. */
export function main(io: ProcessIO): Promise<number> {
  return runProcess('fluxlens', io, () => serve(io));
}

async function serve(io: ProcessIO): Promise<void> {
  const service = startService('server', io);
  const { config, logger, github, credentials } = service;
  const intake = config.redisUrl
    ? redisIntake(config, config.redisUrl, logger)
    : inlineIntake(service);
  const mode = config.github.auth?.kind === 'token' ? 'token' : 'app';
  const { gitea } = service;
  const forges: ReviewDeps['forges'] =
    gitea && config.gitea ? { gitea: { client: gitea.client, gitUrl: config.gitea.url } } : {};
  // Skips and reactions go to the forge the pull request lives on.
  const forgeOfPull = (pull: PullRef) =>
    forgeClientFor(pull, { ...(github ? { github } : {}), forges, mode });
  const app = buildServer({
    logger,
    ...intake,
    ...(config.webhookSecret !== undefined ? { webhookSecret: config.webhookSecret } : {}),
    ...optional('previousWebhookSecret', config.previousWebhookSecret),
    insecureNoWebhookSecret: config.insecureNoWebhookSecret,
    bodyTimeoutMs: config.webhookBodyTimeoutMs,
    largeBodySlots: config.webhookLargeBodies,
    ...optional('commandBots', config.commandBots),
    // Our own comments quote the command; once GitHub has said who we are, they never count.
    ownLogin: () => credentials?.login(),
    ...(config.apiToken !== undefined ? { apiToken: config.apiToken } : {}),
    rateLimits: config.rateLimits,
    ...optional('reportSigningKey', reportSigningKey(config)),
    ...optional('publicUrl', config.publicUrl),
    renderDrafts: config.renderDrafts,
    renderForks: config.renderForks,
    ...optional('repositoryAllowlist', config.repositories),
    checkRunName: CHECK_RUN_NAME,
    ...(config.github.auth?.kind === 'app' ? { appId: Number(config.github.auth.appId) } : {}),
    metrics: service.registry,
    credentialRejection: () => credentials?.rejection(),
    renderReportHtml: (json) => renderHtml(parseAnalysisResult(json)),
    renderReviewsHtml: renderReviewsPage,
    renderReportMarkdown: (json) => renderMarkdown(parseAnalysisResult(json)),
    rules: RULES,
    // The MCP endpoint reaches GitHub repositories only: none without GitHub's credentials.
    ...(github === undefined
      ? { installation: () => Promise.resolve({ installed: false }) }
      : mode === 'app'
        ? { installation: (repository) => installationOf(github, repository) }
        : {}),
    skipCheck: (info) => {
      const forge = forgeOfPull(info.pull);
      return reportSkipped(forge.client, { mode: forge.mode, comment: config.comment }, info);
    },
    react: (info) => acknowledgeCommand(forgeOfPull(info.pull).client, info),
    ...(gitea && config.gitea
      ? {
          gitea: {
            ...optional('webhookSecret', config.gitea.webhookSecret),
            mayCommand: (repo, login) => gitea.client.mayCommand(repo, login),
            ownLogin: gitea.login,
          },
        }
      : {}),
  });
  await app.listen({ port: config.port, host: config.host });
  // The resync lists GitHub's open pull requests; other forges are reviewed from deliveries.
  const resync =
    config.resyncIntervalMs > 0 && github !== undefined
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
  await stopRequested(io);
  logger.info({}, 'shutting down');
  resync?.stop();
  credentials?.stop();
  await app.close();
  await intake.close();
}

/** GitHub answers 404 for a repository none of the App's installations covers. */
async function installationOf(
  github: GitHubClient,
  repository: { owner: string; repo: string },
): Promise<Installation> {
  try {
    const installationId = await github.installationFor(repository);
    return installationId === undefined ? { installed: true } : { installed: true, installationId };
  } catch (err) {
    if (err instanceof GitHubError && err.status === 404) return { installed: false };
    throw err;
  }
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

function inlineIntake({ config, logger, reviewProcessor }: Service): Intake {
  const queue = createInlineQueue({
    resultDir: join(config.cacheDir, 'results'),
    ...optional('resultTtlSeconds', config.resultTtlSeconds),
    logger,
  });
  queue.startWorker({
    concurrency: config.workerConcurrency,
    graceMs: config.shutdownGraceMs,
    logger,
    processor: reviewProcessor(queue.results),
  });
  logger.info(
    { queue: 'inline' },
    'FLUXLENS_REDIS_URL is not set: reviews run in this process on an inline queue',
  );
  return { queue, deliveries: queue, results: queue.results, close: () => queue.close() };
}
