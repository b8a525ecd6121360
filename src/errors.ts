/**
 * The one table of error codes fluxlens throws, and `classify`, which every boundary uses to
 * decide what an error means: the CLI (exit code), the worker (retry, give up, or report)
 * and the HTTP error handler (status, from `HTTP_STATUS`). Callers branch on `code`, never
 * on message text.
 */

/** What the caller can do about an error. */
export type ErrorClass =
  /** The input is wrong (flags, request, repository content): fix it; retrying will not help. */
  | 'usage'
  /** The machine lacks something (a tool, a folder, a credential): the operator fixes it. */
  | 'setup'
  /** Worth retrying as is: the network, a remote server, a lock, a timeout. */
  | 'transient'
  /** The work was cancelled on purpose (a newer head, a closed PR, shutdown). */
  | 'cancelled'
  /** A bug or an unexpected tool failure. */
  | 'internal';

/** The HTTP status each class answers with: one row per class, as the handler sends it. */
export const HTTP_STATUS = {
  usage: 400,
  /** Not the caller's fault, and not permanent: the operator fixes it, then the same call works. */
  setup: 503,
  transient: 503,
  /** The work the request asked for was stopped by a newer one, a closed PR or shutdown. */
  cancelled: 409,
  internal: 500,
} as const satisfies Record<ErrorClass, number>;

export const ERROR_CODES = {
  /** Bad command-line flags or API input. */
  usage: 'usage',
  /** A revision that does not exist, or two revisions with no common history. */
  'bad-revision': 'usage',
  /** No base branch was named and none could be found. */
  'no-default-branch': 'usage',
  /** The entry folder holds no Flux Kustomization or HelmRelease. */
  'no-flux-objects': 'usage',
  /** A path that leaves the repository (`..`, absolute, a symlink out). */
  'unsafe-path': 'usage',
  /** Repository content Flux would reject: YAML, substitution, values, templates, generators. */
  'invalid-content': 'usage',
  /** Content over one of fluxlens's size, count or depth bounds. */
  'limit-exceeded': 'usage',
  /** A remote kustomize base, which the render settings do not allow fetching. */
  'remote-base-refused': 'usage',
  /** A tool, folder or setting the machine lacks. */
  setup: 'setup',
  /** A chart that could not be fetched: network, credentials, or an offline cache miss. */
  'chart-unavailable': 'transient',
  /** A tool run that took longer than its timeout. */
  'tool-timeout': 'transient',
  /** GitHub refused a request in a way that will not pass (a PR that is gone, a bad input). */
  'github-rejected': 'usage',
  /** Another forge (Gitea, Forgejo) refused a request in a way that will not pass. */
  'forge-rejected': 'usage',
  /** A remote (git server, GitHub) that failed in a way that may pass. */
  'remote-unavailable': 'transient',
  cancelled: 'cancelled',
  /** An external tool that failed for a reason fluxlens cannot name. */
  tool: 'internal',
  internal: 'internal',
} as const satisfies Record<string, ErrorClass>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class FluxlensError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FluxlensError';
  }
}

/** Bad command-line or API input: the caller can fix it and try again. */
export class UsageError extends FluxlensError {
  constructor(message: string, code: ErrorCode = 'usage') {
    super(code, message);
    this.name = 'UsageError';
  }
}

/** The machine lacks something fluxlens needs (a tool, a directory). */
export class SetupError extends FluxlensError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('setup', message, options);
    this.name = 'SetupError';
  }
}

/** A revision question the user answers: which flag or step would fix it is the CLI's to say. */
export class RevisionError extends FluxlensError {
  constructor(
    code: 'bad-revision' | 'no-default-branch',
    message: string,
    /** Why, as data: the CLI turns it into advice ("pass --base"). */
    readonly reason: 'no-common-ancestor' | 'shallow-clone' | 'no-default-branch' | 'unknown',
  ) {
    super(code, message);
    this.name = 'RevisionError';
  }
}

/** Work stopped on purpose; nothing about it is wrong. */
export class CancelledError extends FluxlensError {
  constructor(message = 'cancelled', options?: { cause?: unknown }) {
    super('cancelled', message, options);
    this.name = 'CancelledError';
  }
}

/** What an error means to the caller; anything that is not ours is internal. */
export function classify(err: unknown): ErrorClass {
  if (err instanceof FluxlensError) return ERROR_CODES[err.code];
  if (err instanceof Error && err.name === 'AbortError') return 'cancelled';
  return 'internal';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
