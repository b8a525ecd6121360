/**
 * An error a route throws on purpose: its status and message are safe to send as they are.
 * `rejection` names why a request was refused, for the rejections counter.
 */
export type RejectionReason =
  | 'bad-signature'
  | 'oversized'
  | 'bad-token'
  | 'bad-report-signature'
  | 'bad-request'
  /** A body that did not arrive within the body timeout. */
  | 'slow-body'
  /** Every large-body slot was taken. */
  | 'busy'
  /** Past a rate limit of the re-render API. */
  | 'rate-limited';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly rejection?: RejectionReason,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HttpError';
  }
}

/** Over a rate limit: 429, and Retry-After says when the window ends. */
export class TooManyRequests extends HttpError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'too many render requests, try again later', 'rate-limited');
    this.name = 'TooManyRequests';
  }
}

/** The queue or ledger did not answer: GitHub marks the delivery failed and can redeliver. */
export function serviceUnavailable(cause: unknown): HttpError {
  return new HttpError(503, 'queue unavailable, try again', undefined, { cause });
}
