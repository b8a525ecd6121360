/**
 * The few error classes fluxlens throws across module boundaries. Callers branch on
 * `code`, never on message text.
 */
export type ErrorCode = 'usage' | 'setup' | 'tool' | 'no-flux-objects' | 'unsafe-path';

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
  constructor(message: string) {
    super('usage', message);
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

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
