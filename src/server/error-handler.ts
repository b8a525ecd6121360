/**
 * The one place errors become HTTP responses. Deliberate refusals (HttpError) keep their
 * status and message; framework 4xx keep their status with a generic message; any other
 * error answers the status of its class in the error table (`classify`): a usage error
 * says what was wrong, the rest say nothing about internals and are logged with their cause.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { type ErrorClass, HTTP_STATUS, classify, errorMessage } from '../errors.js';
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
    const status = clientErrorStatus(err);
    if (status !== undefined) {
      if (status === 413) metrics.rejection('oversized');
      request.log.info({ statusCode: status }, 'request refused');
      return reply.code(status).send({ error: genericMessage(status) });
    }
    const kind = classify(err);
    const code = HTTP_STATUS[kind];
    if (code >= 500) request.log.error({ err, kind }, 'request failed');
    else request.log.info({ statusCode: code, kind, reason: errorMessage(err) }, 'request refused');
    if (code === 503) void reply.header('retry-after', '30');
    return reply.code(code).send({ error: publicMessage(err, kind, code) });
  });
}

/** Only a usage error's message is for the caller; the others may name internals. */
function publicMessage(err: unknown, kind: ErrorClass, status: number): string {
  if (kind === 'usage') return errorMessage(err);
  return status === 500 ? 'internal error' : genericMessage(status);
}

function genericMessage(status: number): string {
  return (STATUS_CODES[status] ?? 'bad request').toLowerCase();
}

/** The 4xx of a framework error (bad body, oversized, unsupported type, validation). */
function clientErrorStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  if ('validation' in err && err.validation !== undefined) return 400;
  const status = 'statusCode' in err ? err.statusCode : undefined;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}
