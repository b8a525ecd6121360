/**
 * Octokit as fluxlens uses it: retries of 5xx and network failures (plugin-retry),
 * waiting out rate limits within bounds (plugin-throttling), writes paced per
 * installation, a timeout per request, and App or token auth.
 */
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import Bottleneck from 'bottleneck';
import type { LogSink } from '../logger.js';
import { FLUXLENS_VERSION } from '../version.js';

export const FluxlensOctokit = Octokit.plugin(retry, throttling);
export type GitHubOctokit = InstanceType<typeof FluxlensOctokit>;

export interface RetryOptions {
  /** Retries of a 5xx or network failure. */
  retries?: number;
  /** Backoff base: the n-th retry waits n² times this many milliseconds. */
  retryBaseMs?: number;
  /** Retries after a rate-limit answer (primary or secondary). */
  rateLimitRetries?: number;
  /** A longer wait is not sat out: the call fails, transient, for the queue to retry. */
  maxRateLimitWaitSeconds?: number;
  /** Milliseconds per second of GitHub's retry-after; tests shrink it. */
  retryAfterUnitMs?: number;
}

export interface PacingOptions {
  /** Gap between writes of one installation; GitHub asks for at least a second. */
  writeIntervalMs?: number;
  /** Gap between writes that notify people (new comments); GitHub's guidance is 3 s. */
  notificationIntervalMs?: number;
}

export type OctokitAuth =
  | { kind: 'app'; appId: string; privateKey: string; installationId?: number }
  | { kind: 'token'; token: string };

export interface OctokitSettings {
  apiUrl: string;
  auth: OctokitAuth;
  logger: LogSink;
  retry: Required<RetryOptions>;
  /** Shared by the client's Octokits, keyed by `throttleId`. */
  pacing: { write: Bottleneck.Group; notifications: Bottleneck.Group };
  throttleId: string;
  timeoutMs: number;
  /** Told the status of every HTTP answer (retries included), or `error` for none. */
  onResponse: (status: string) => void;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  retries: 3,
  retryBaseMs: 1000,
  rateLimitRetries: 2,
  maxRateLimitWaitSeconds: 60,
  retryAfterUnitMs: 1000,
};

export function createPacing(options: PacingOptions = {}): OctokitSettings['pacing'] {
  return {
    write: new Bottleneck.Group({ maxConcurrent: 1, minTime: options.writeIntervalMs ?? 1000 }),
    notifications: new Bottleneck.Group({
      maxConcurrent: 1,
      minTime: options.notificationIntervalMs ?? 3000,
    }),
  };
}

function timeoutFetch(timeoutMs: number, onResponse: (status: string) => void): typeof fetch {
  return async (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      const response = await fetch(input, { ...init, signal });
      onResponse(String(response.status));
      return response;
    } catch (err) {
      onResponse('error');
      throw err;
    }
  };
}

export function buildOctokit(settings: OctokitSettings): GitHubOctokit {
  const { logger, retry: limits } = settings;
  const onLimit =
    (kind: string) =>
    (retryAfter: number, options: { method: string; url: string }, _o: unknown, count: number) => {
      const willRetry =
        count < limits.rateLimitRetries && retryAfter <= limits.maxRateLimitWaitSeconds;
      const fields = { kind, method: options.method, route: options.url, retryAfter, willRetry };
      logger.warn(fields, 'GitHub rate limit');
      return willRetry;
    };
  const octokitWarn = (message: string) => logger.warn({ detail: message }, 'octokit warning');
  // Octokit logs every failed request as an error; the caller gets it as a GitHubError
  // and logs it once, with the job's context.
  const common = {
    baseUrl: settings.apiUrl,
    userAgent: `fluxlens/${FLUXLENS_VERSION}`,
    log: { debug: () => {}, info: () => {}, warn: octokitWarn, error: () => {} },
    request: { fetch: timeoutFetch(settings.timeoutMs, settings.onResponse) },
    retry: { retries: limits.retries, retryAfterBaseValue: limits.retryBaseMs },
    throttle: {
      id: settings.throttleId,
      retryAfterBaseValue: limits.retryAfterUnitMs,
      write: settings.pacing.write,
      notifications: settings.pacing.notifications,
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
    },
  };
  const { auth } = settings;
  if (auth.kind === 'token') return new FluxlensOctokit({ ...common, auth: auth.token });
  return new FluxlensOctokit({
    ...common,
    authStrategy: createAppAuth,
    auth: {
      appId: auth.appId,
      privateKey: auth.privateKey,
      ...(auth.installationId === undefined ? {} : { installationId: auth.installationId }),
    },
  });
}
