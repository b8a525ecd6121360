/**
 * The pino root logger of the service and its children. Serializers keep only the fields
 * we choose (an error's own properties can hold a request with its headers or a webhook
 * body), and redact paths catch credentials that reach a log line some other way.
 */
import { type DestinationStream, type Level, type Logger, pino } from 'pino';
import { CREDENTIAL_MARKER } from './redact/index.js';

export type { Logger } from 'pino';

/**
 * What code that writes log lines needs of a logger: pino's `(fields, message)` methods.
 * Every layer may import this type (and only the type); a pino Logger, root or child, is one.
 */
export type LogSink = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

export interface LoggerOptions {
  level: Level | 'silent';
  /** Where JSON lines go; stdout when absent. */
  destination?: DestinationStream;
}

/** Credentials by name, at the top level and one level down (`{ github: { token } }`). */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'token',
  'apiToken',
  'privateKey',
  'secret',
  'webhookSecret',
  'previousWebhookSecret',
  'reportSigningKey',
  'password',
];

const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  'headers.authorization',
  'headers.cookie',
  'headers["x-hub-signature-256"]',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["set-cookie"]',
  '*.headers["x-hub-signature-256"]',
];

/** Nesting kept of `cause` chains: enough to see the root cause, bounded against cycles. */
const MAX_CAUSE_DEPTH = 3;

interface SerializedError {
  type: string;
  message: string;
  code?: string;
  statusCode?: number;
  stack?: string;
  cause?: SerializedError | string;
}

/**
 * An error as a log record: type, message, code, status and stack, nothing else. Octokit
 * and webhook errors carry `request`, `response` and `event` properties with headers and
 * payloads; those never reach the log.
 */
export function serializeError(err: unknown, depth = 0): SerializedError | string {
  if (!(err instanceof Error)) return typeof err === 'string' ? err : 'non-error value thrown';
  const out: SerializedError = { type: err.name, message: err.message };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') out.code = code;
  const status =
    (err as { statusCode?: unknown }).statusCode ?? (err as { status?: unknown }).status;
  if (typeof status === 'number') out.statusCode = status;
  if (err.stack !== undefined) out.stack = err.stack;
  if (err.cause !== undefined && depth < MAX_CAUSE_DEPTH) {
    out.cause = serializeError(err.cause, depth + 1);
  }
  return out;
}

interface RequestLike {
  method?: string;
  url?: string;
  routeOptions?: { url?: string };
}

/** A request as method and path; the query string can hold a signed report link. */
function serializeRequest(req: RequestLike): { method?: string; path?: string } {
  const out: { method?: string; path?: string } = {};
  if (req.method !== undefined) out.method = req.method;
  if (req.url !== undefined) out.path = req.url.split('?', 1)[0] ?? '';
  return out;
}

function serializeResponse(res: { statusCode?: number }): { statusCode?: number } {
  return res.statusCode === undefined ? {} : { statusCode: res.statusCode };
}

export function createLogger(options: LoggerOptions): Logger {
  const config = {
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: CREDENTIAL_MARKER },
    serializers: { err: serializeError, req: serializeRequest, res: serializeResponse },
  };
  return options.destination === undefined ? pino(config) : pino(config, options.destination);
}

/** A component's or a job's logger: every line carries the bindings (repo, PR, delivery id). */
export function childLogger(root: Logger, bindings: Record<string, unknown>): Logger {
  return root.child(bindings);
}
