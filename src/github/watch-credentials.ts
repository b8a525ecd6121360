/**
 * Whether GitHub accepts the service's credentials, asked at start and again on a fixed
 * schedule, so readiness can say so. A refusal (401 for a wrong key, App id or token, 404,
 * a key that cannot sign) marks them rejected; a network failure, a 5xx or a rate limit
 * says nothing about them and keeps the last answer.
 */
import { classify, errorMessage } from '../errors.js';
import type { LogSink } from '../logger.js';
import type { GitHubClient } from './create-github-client.js';
import { toGitHubError } from './github-error.js';

export interface CredentialWatch {
  /** Why GitHub refuses the credentials; undefined until it has (unknown counts as fine). */
  rejection(): string | undefined;
  /** Who GitHub says the credentials are (the App's `<slug>[bot]` or the token's user), once known. */
  login(): string | undefined;
  /** Resolves once the first check has an answer, rejection or not. */
  readonly firstCheck: Promise<void>;
  stop(): void;
}

export interface CredentialWatchOptions {
  /** Between checks while GitHub accepts the credentials. */
  acceptedIntervalMs?: number;
  /** Between checks after a refusal or a failed check. */
  retryIntervalMs?: number;
}

/** A revoked key or token shows within this long. */
const ACCEPTED_INTERVAL_MS = 10 * 60 * 1000;
/** A refusal is asked again this often: one request, well inside GitHub's rate limits. */
const RETRY_INTERVAL_MS = 60 * 1000;

type Outcome =
  | { kind: 'accepted'; login: string }
  | { kind: 'rejected' | 'failed'; reason: string };

/**
 * Checks now, then every few minutes, and logs each change once: accepted (info),
 * rejected (error, with GitHub's reason), not checkable (warn). The credentials are the
 * ones the process started with; a changed Secret takes a restart.
 */
export function watchCredentials(
  github: GitHubClient,
  logger: LogSink,
  options: CredentialWatchOptions = {},
): CredentialWatch {
  const acceptedMs = options.acceptedIntervalMs ?? ACCEPTED_INTERVAL_MS;
  const retryMs = options.retryIntervalMs ?? RETRY_INTERVAL_MS;
  let rejection: string | undefined;
  let login: string | undefined;
  let last: Outcome['kind'] | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const check = async (): Promise<void> => {
    const outcome = await ask(github);
    if (stopped) return;
    if (outcome.kind !== last) {
      if (outcome.kind === 'accepted') {
        logger.info({ login: outcome.login }, 'GitHub accepted the credentials');
      }
      if (outcome.kind === 'rejected') {
        logger.error({ reason: outcome.reason }, 'GitHub rejected the credentials');
      }
      if (outcome.kind === 'failed') {
        logger.warn(
          { reason: outcome.reason },
          'could not ask GitHub whether it accepts the credentials',
        );
      }
      last = outcome.kind;
    }
    if (outcome.kind === 'accepted') {
      rejection = undefined;
      login = outcome.login;
    }
    if (outcome.kind === 'rejected') rejection = outcome.reason;
    timer = setTimeout(() => void check(), outcome.kind === 'accepted' ? acceptedMs : retryMs);
    timer.unref();
  };

  return {
    rejection: () => rejection,
    login: () => login,
    firstCheck: check(),
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

async function ask(github: GitHubClient): Promise<Outcome> {
  try {
    return { kind: 'accepted', login: await github.verifyCredentials() };
  } catch (err) {
    const error = toGitHubError(err);
    return {
      kind: classify(error) === 'transient' ? 'failed' : 'rejected',
      reason: errorMessage(error),
    };
  }
}
