// The one error type of post-build substitution. It lives beside the envsubst dialect, the lowest
// code that throws it, so the parser and evaluator need not import the Flux wiring above them;
// render/substitute.ts re-exports it.

export class SubstitutionError extends Error {
  readonly code = 'substitution';
  /** The variable a strict-mode failure is about (a name, never a value). */
  readonly variable: string | undefined;

  constructor(message: string, options: { variable?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SubstitutionError';
    this.variable = options.variable;
  }
}
