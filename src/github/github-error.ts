/**
 * The one error github/ throws: what GitHub answered (status), and a code saying whether
 * trying again later can help, so the worker decides retry or give up with classify(),
 * without reading messages. Messages name the request and GitHub's reason, never a credential.
 */
import { z } from 'zod';
import { FluxlensError, type ErrorCode } from '../errors.js';
import { scrubCredentials } from '../redact/index.js';

/** Transient answers may pass; 401/403 are the operator's to fix; anything else will not pass. */
function codeOf(status: number | undefined, transient: boolean): ErrorCode {
  if (transient) return 'remote-unavailable';
  return status === 401 || status === 403 ? 'setup' : 'github-rejected';
}

export class GitHubError extends FluxlensError {
  /** GitHub's HTTP status; undefined when no answer came (network, timeout). */
  readonly status: number | undefined;

  constructor(
    message: string,
    /** `transient`: 5xx, 429, rate limits and network failures, the same request may work later. */
    details: { status?: number; transient: boolean },
  ) {
    super(codeOf(details.status, details.transient), message);
    this.name = 'GitHubError';
    this.status = details.status;
  }
}

/** The parts of an Octokit RequestError we read; anything else on it is ignored. */
const RequestErrorShape = z.object({
  status: z.number(),
  message: z.string(),
  request: z.object({ method: z.string(), url: z.string() }).optional(),
  response: z
    .object({
      headers: z.record(z.string(), z.unknown()),
      data: z.unknown(),
    })
    .optional(),
});

const GitHubMessage = z.object({ message: z.string() });
const MAX_REASON = 300;

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? '';
  }
}

function header(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = headers?.[name];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** Replaces every occurrence of a known secret; a last guard, messages should hold none. */
/**
 * Wraps anything a GitHub call threw. Octokit's own error is not kept as `cause`: it
 * carries the request, headers included, and loggers print causes.
 */
export function toGitHubError(err: unknown, secrets: readonly string[] = []): GitHubError {
  if (err instanceof GitHubError) return err;
  if (err instanceof z.ZodError) {
    const field = err.issues[0]?.path.join('.') ?? '';
    return new GitHubError(`GitHub sent a response fluxlens cannot read (at "${field}")`, {
      transient: false,
    });
  }
  const parsed = RequestErrorShape.safeParse(err);
  if (!parsed.success) {
    const reason = err instanceof Error ? err.message : String(err);
    return new GitHubError(
      scrubCredentials(`GitHub call failed: ${reason}`, secrets).slice(0, MAX_REASON),
      {
        transient: false,
      },
    );
  }
  const { status, request, response } = parsed.data;
  const what = request ? `${request.method} ${pathOf(request.url)}` : 'GitHub request';
  if (!response) {
    // @octokit/request reports a failure to connect or a timeout as 500 without a response.
    const reason = scrubCredentials(parsed.data.message, secrets).slice(0, MAX_REASON);
    return new GitHubError(`${what} failed: ${reason}`, { transient: true });
  }
  const body = GitHubMessage.safeParse(response.data);
  const reason = scrubCredentials(body.success ? body.data.message : parsed.data.message, secrets);
  const rateLimited =
    (status === 403 || status === 429) &&
    (header(response.headers, 'x-ratelimit-remaining') === '0' ||
      header(response.headers, 'retry-after') !== undefined ||
      /\bsecondary rate\b/i.test(reason));
  return new GitHubError(`${what} answered ${status}: ${reason.slice(0, MAX_REASON)}`, {
    status,
    transient: status >= 500 || status === 429 || rateLimited,
  });
}
