/**
 * What `fluxlens serve` and `fluxlens worker` both build before they part ways: their
 * role's config, the logger (whose first line names the version), the metrics registry,
 * the GitHub client and the watch on its credentials, the Gitea/Forgejo client when one is
 * configured, and the review both queues run; and
 * how either process ends in an exit code.
 */
import { availableParallelism } from 'node:os';
import type { Registry } from 'prom-client';
import { loadServiceConfig, type ServiceConfig } from '../src/config.js';
import { classify, errorMessage } from '../src/errors.js';
import {
  githubFromConfig,
  watchCredentials,
  type CredentialWatch,
  type GitHubClient,
} from '../src/github/index.js';
import { createGiteaClient, type GiteaClient } from '../src/forges/index.js';
import { createLogger, type Logger } from '../src/logger.js';
import type { JobProcessor, ResultStore } from '../src/queue/index.js';
import { createGitHubCallCounter, createReviewProcessor } from '../src/review/index.js';
import { createMetricsRegistry } from '../src/server/index.js';
import { FLUXLENS_VERSION } from '../src/version.js';

/** What a process entry point may touch of its process (bin/fluxlens.js passes it). */
export interface ProcessIO {
  env: NodeJS.ProcessEnv;
  stderr: (text: string) => void;
  /** Aborts when the process is asked to stop. */
  shutdown: AbortSignal;
}

export interface Service {
  config: ServiceConfig;
  logger: Logger;
  registry: Registry;
  /** Absent when only Gitea/Forgejo is configured. */
  github?: GitHubClient;
  credentials?: CredentialWatch;
  /** Gitea or Forgejo, when configured, and our login there once it has answered. */
  gitea?: { client: GiteaClient; login: () => string | undefined };
  /** The review of one job, storing its result in `results`; build it once per process. */
  reviewProcessor(results: ResultStore): JobProcessor;
}

export function startService(role: 'server' | 'worker', io: ProcessIO): Service {
  const config = loadServiceConfig(role, io.env, { cpuCount: availableParallelism() });
  const logger = createLogger({ level: config.logLevel });
  const starting = role === 'server' ? 'fluxlens serve starting' : 'fluxlens worker starting';
  logger.info({ version: FLUXLENS_VERSION, node: process.version }, starting);
  const registry = createMetricsRegistry({ processMetrics: true });
  // GitHub's credentials may be left out when another forge is served; then GitHub is not.
  const github =
    config.github.auth === undefined && config.gitea !== undefined
      ? undefined
      : githubFromConfig(config, logger, createGitHubCallCounter(registry));
  const credentials = github && watchCredentials(github, logger);
  const gitea = config.gitea === undefined ? undefined : startGitea(config.gitea, logger);
  const forges =
    gitea && config.gitea
      ? { gitea: { client: gitea.client, gitUrl: config.gitea.url } }
      : undefined;
  return {
    config,
    logger,
    registry,
    ...(github ? { github } : {}),
    ...(credentials ? { credentials } : {}),
    ...(gitea ? { gitea } : {}),
    reviewProcessor: (results) =>
      createReviewProcessor({
        config,
        github,
        ...(forges ? { forges } : {}),
        results,
        logger,
        registry,
      }),
  };
}

/**
 * The Gitea/Forgejo client, and what the forge says it is and who we are there, asked once
 * at start: a forge that does not answer yet is asked again by the first review.
 */
function startGitea(
  settings: { url: string; token: string },
  logger: Logger,
): NonNullable<Service['gitea']> {
  const client = createGiteaClient({ url: settings.url, token: settings.token });
  let login: string | undefined;
  void Promise.all([client.version(), client.login()]).then(
    ([version, me]) => {
      login = me;
      logger.info(
        { forge: version.flavor, version: version.version, login: me },
        'gitea forge answers',
      );
    },
    (err: unknown) => logger.warn({ err }, 'gitea forge did not answer'),
  );
  return { client, login: () => login };
}

/**
 * Runs a process until `run` returns (0); an error becomes one line on stderr, after
 * `prefix`, and exit code 2 for a setup or usage problem, 1 for anything else.
 */
export async function runProcess(
  prefix: string,
  io: ProcessIO,
  run: () => Promise<void>,
): Promise<number> {
  try {
    await run();
    return 0;
  } catch (err) {
    io.stderr(`${prefix}: ${errorMessage(err)}\n`);
    const kind = classify(err);
    return kind === 'setup' || kind === 'usage' ? 2 : 1;
  }
}

/** Resolves when the process is asked to stop. */
export function stopRequested(io: ProcessIO): Promise<void> {
  if (io.shutdown.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    io.shutdown.addEventListener('abort', () => resolve(), { once: true }),
  );
}
