/**
 * The one place errors become HTTP responses. Deliberate refusals (HttpError) keep their
 * status and message; framework 4xx keep their status with a generic message; anything
 * else is a 500 that says nothing about internals and is logged with its cause.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { UsageError } from '../errors.js';
import { HttpError, TooManyRequests } from './http-error.js';
import type { ServerMetrics } from './metrics.js';

export function installErrorHandler(app: FastifyInstance, metrics: ServerMetrics): void {
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));

  app.setErrorHandler((err: unknown, request, reply) => {
    if (err instanceof HttpError) {
      if (err.rejection !== undefined) metrics.rejection(err.rejection);
      if (err.statusCode >= 500) request.log.error({ err }, 'request failed');
      else request.log.info({ statusCode: err.statusCode, reason: err.message }, 'request refused');
      if (err.statusCode === 503) void reply.header('retry-after', '30');
      if (err instanceof TooManyRequests) {
        void reply.header('retry-after', String(err.retryAfterSeconds));
      }
      if (err.rejection === 'bad-token') void reply.header('www-authenticate', 'Bearer');
      return reply.code(err.statusCode).send({ error: err.message });
    }
    if (err instanceof UsageError) return reply.code(400).send({ error: err.message });
    const status = clientErrorStatus(err);
    if (status !== undefined) {
      if (status === 413) metrics.rejection('oversized');
      request.log.info({ statusCode: status }, 'request refused');
      return reply
        .code(status)
        .send({ error: (STATUS_CODES[status] ?? 'bad request').toLowerCase() });
    }
    request.log.error({ err }, 'request failed');
    return reply.code(500).send({ error: 'internal error' });
  });
}

/** The 4xx of a framework error (bad body, oversized, unsupported type, validation). */
function clientErrorStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  if ('validation' in err && err.validation !== undefined) return 400;
  const status = 'statusCode' in err ? err.statusCode : undefined;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}
