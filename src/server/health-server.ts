/**
 * Health and metrics alone, for a process that serves no other HTTP (`fluxlens worker`):
 * buildServer's /healthz, /readyz and /metrics, answered by the same routes, on an app
 * of their own. Not listening: the caller owns the port.
 */
import Fastify from 'fastify';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import { registerHealthRoutes } from './health-routes.js';
import type { Readiness } from './types.js';

export interface HealthServerDeps {
  logger: Logger;
  /** Scraped on /metrics. */
  registry: Registry;
  /** What /readyz answers; a failure is a 503 that is not ready. */
  readiness: () => Promise<Readiness>;
}

export function buildHealthServer(deps: HealthServerDeps): FastifyInstance {
  const loggerInstance: FastifyBaseLogger = deps.logger;
  const app = Fastify({ loggerInstance });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));
  registerHealthRoutes(app, deps.registry, deps.readiness);
  return app;
}
