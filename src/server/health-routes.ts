/**
 * Liveness (with the running version), readiness and Prometheus scrapes. Logged at warn
 * only: probes and scrapes arrive every few seconds and would drown the request log.
 */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { FLUXLENS_VERSION } from '../version.js';
import type { Readiness, ServerDeps } from './types.js';

export function registerHealthRoutes(
  app: FastifyInstance,
  registry: Registry,
  readiness: () => Promise<Readiness>,
): void {
  const quiet = { logLevel: 'warn' } as const;

  app.get('/healthz', quiet, async () => ({ status: 'ok', version: FLUXLENS_VERSION }));

  app.get('/readyz', quiet, async (request, reply) => {
    let result: Readiness;
    try {
      result = await readiness();
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed');
      result = { ok: false, checks: {} };
    }
    return reply.code(result.ok ? 200 : 503).send(result);
  });

  app.get('/metrics', quiet, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
}

/** Ready when the queue answers and GitHub has not refused the credentials (readinessOf). */
export async function queueReadiness(
  deps: Pick<ServerDeps, 'queue' | 'credentialRejection'>,
): Promise<Readiness> {
  const queue = await deps.queue.ping().catch(() => false);
  return readinessOf(queue, deps.credentialRejection);
}

/**
 * Ready when the queue answers and GitHub has not refused our credentials (the github
 * check is there when the process watches them); the reason says what is missing.
 */
function readinessOf(
  queue: boolean,
  credentialRejection: (() => string | undefined) | undefined,
): Readiness {
  const rejection = credentialRejection?.();
  const checks: Record<string, boolean> = { queue };
  if (credentialRejection) checks['github'] = rejection === undefined;
  const reasons = [
    ...(queue ? [] : ['the queue does not answer']),
    ...(rejection ? [rejection] : []),
  ];
  return reasons.length === 0
    ? { ok: true, checks }
    : { ok: false, checks, reason: reasons.join('; ') };
}
