/**
 * buildServer(deps) -> the fastify app, not listening: the caller owns the port, tests
 * use app.inject. Every outside dependency arrives in deps; nothing here reads the env.
 */
import Fastify from 'fastify';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { SetupError } from '../errors.js';
import { repositoryKey } from '../model/index.js';
import { registerApiRoutes } from './api-routes.js';
import { createBackgroundTasks } from './background-tasks.js';
import { installErrorHandler } from './error-handler.js';
import { queueReadiness, registerHealthRoutes } from './health-routes.js';
import { createMetricsRegistry, registerServerMetrics } from './metrics.js';
import { registerMcpRoute } from './mcp-route.js';
import { registerReportRoute } from './report-route.js';
import { registerReviewsRoute } from './reviews-route.js';
import type { ServerContext } from './server-context.js';
import type { ServerDeps } from './types.js';
import { DEFAULT_BODY_TIMEOUT_MS, registerWebhookRoute } from './webhook-route.js';

/** Bodies outside the webhook route are small JSON documents. */
const DEFAULT_BODY_LIMIT = 64 * 1024;

export function buildServer(deps: ServerDeps): FastifyInstance {
  if (!deps.webhookSecret && deps.insecureNoWebhookSecret !== true) {
    throw new SetupError(
      'a webhook secret is required to verify GitHub deliveries; ' +
        'only local development may run without one, by setting insecureNoWebhookSecret',
    );
  }
  if (
    deps.gitea !== undefined &&
    !deps.gitea.webhookSecret &&
    deps.insecureNoWebhookSecret !== true
  ) {
    throw new SetupError(
      'a webhook secret is required to verify Gitea deliveries; ' +
        'only local development may run without one, by setting insecureNoWebhookSecret',
    );
  }
  const registry = deps.metrics ?? createMetricsRegistry();
  const background = createBackgroundTasks();
  const ctx: ServerContext = {
    deps,
    metrics: registerServerMetrics(registry, () => deps.queue.depth(), deps.logger),
    background,
    now: deps.clock ?? (() => new Date()),
    allowlist:
      deps.repositoryAllowlist === undefined
        ? undefined
        : new Set(
            deps.repositoryAllowlist.map((name) => {
              const [owner = '', repo = ''] = name.split('/');
              return repositoryKey(owner, repo);
            }),
          ),
    commandBots: new Set((deps.commandBots ?? []).map((login) => login.toLowerCase())),
  };

  // Typed as fastify's logger so routes see the plain FastifyInstance, not a pino-specific one.
  const loggerInstance: FastifyBaseLogger = deps.logger;
  // A backstop for every route: no request may take longer than this to arrive whole. The
  // webhook route refuses a slow body sooner, at its own deadline.
  const requestTimeout = 2 * (deps.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
  const app = Fastify({ loggerInstance, bodyLimit: DEFAULT_BODY_LIMIT, requestTimeout });
  installErrorHandler(app, ctx.metrics);
  registerWebhookRoute(app, ctx);
  registerApiRoutes(app, ctx);
  registerReportRoute(app, ctx);
  registerReviewsRoute(app, ctx);
  registerMcpRoute(app, ctx);
  registerHealthRoutes(app, registry, deps.readiness ?? (() => queueReadiness(deps)));
  app.addHook('onClose', async () => background.drain());
  return app;
}
