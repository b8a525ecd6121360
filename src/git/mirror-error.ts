/**
 * Why a mirror fetch failed, as data the worker can act on through its code: failures that
 * classify as transient (network, a 5xx from the git server, a timeout, a busy mirror) are
 * worth a retry; the others (no such repository or ref, a rejected token) fail the same
 * way every time.
 */
import { FluxlensError, type ErrorCode } from '../errors.js';
import { ToolError } from '../tool-runner.js';
import { scrubCredentials } from '../redact/index.js';

export type MirrorFailure =
  /** 401/403: the token is wrong, expired, or lacks access to this repository. */
  | 'auth'
  /** The repository, the base branch or refs/pull/N/head does not exist (404 included). */
  | 'not-found'
  /** A 5xx, a refused or dropped connection, a name lookup: the remote may recover. */
  | 'unavailable'
  | 'timeout'
  /** Another fetch of the same mirror held its lock for longer than we wait. */
  | 'busy';

const CODES: Record<MirrorFailure, ErrorCode> = {
  auth: 'setup',
  'not-found': 'usage',
  unavailable: 'remote-unavailable',
  timeout: 'tool-timeout',
  busy: 'remote-unavailable',
};

export class MirrorError extends FluxlensError {
  constructor(
    readonly reason: MirrorFailure,
    message: string,
  ) {
    super(CODES[reason], message);
    this.name = 'MirrorError';
  }
}

/**
 * git exits 128 for every fetch failure, so its last stderr lines are the only account of
 * what went wrong; these are the ones git 2.3x prints through libcurl. Anything unmatched
 * counts as unavailable: most unnamed fetch failures are the network, and the queue
 * bounds the retries of the rest.
 */
const PERMANENT: ReadonlyArray<[RegExp, MirrorFailure]> = [
  [/Authentication failed|could not read (Username|Password)|returned error: 40[13]\b/, 'auth'],
  [/repository '.*' not found|returned error: 404\b|couldn't find remote ref/, 'not-found'],
];

/**
 * A MirrorError for a failed git fetch, with every form of `secrets` removed from its
 * message: git echoes the body of an HTTP error as `remote:` lines, so a server (or proxy)
 * that reflects request headers would otherwise put the token into our logs. The
 * ToolError is not kept as the cause for the same reason.
 */
export function fetchFailure(
  err: unknown,
  what: string,
  secrets: readonly string[],
): MirrorError | undefined {
  if (!(err instanceof ToolError)) return undefined;
  const tail = scrubCredentials(err.stderrTail, secrets);
  const detail = tail
    .split('\n')
    .slice(-3)
    .map((line) => (line.length > MAX_LINE ? '[long line omitted]' : line))
    .join(' / ');
  if (err.code === 'tool-timeout') {
    return new MirrorError('timeout', `${what} timed out${detail ? `: ${detail}` : ''}`);
  }
  // Only git's own `fatal:` lines: `remote:` lines are whatever the server sent.
  const verdict = tail
    .split('\n')
    .filter((line) => line.startsWith('fatal:'))
    .join('\n');
  const reason = PERMANENT.find(([pattern]) => pattern.test(verdict))?.[1] ?? 'unavailable';
  return new MirrorError(reason, `${what} failed${detail ? `: ${detail}` : ''}`);
}

/**
 * git's messages are short; a long line is a reflected response body, and the first line
 * of a truncated stderr tail may start in the middle of a secret that redaction cannot
 * recognise any more.
 */
const MAX_LINE = 300;
