/**
 * The one error the Gitea/Forgejo client throws: the forge's status and whether trying again
 * may help, so the worker decides with classify(). Messages name the request and the forge's
 * reason, never the token.
 */
import { FluxlensError, type ErrorCode } from '../../errors.js';

function codeOf(status: number | undefined, transient: boolean): ErrorCode {
  if (transient) return 'remote-unavailable';
  return status === 401 || status === 403 ? 'setup' : 'forge-rejected';
}

export class GiteaError extends FluxlensError {
  /** The forge's HTTP status; undefined when no answer came (network, timeout). */
  readonly status: number | undefined;

  constructor(message: string, details: { status?: number; transient: boolean }) {
    super(codeOf(details.status, details.transient), message);
    this.name = 'GiteaError';
    this.status = details.status;
  }
}
