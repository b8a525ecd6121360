// The one error type of post-build substitution. It lives beside the envsubst dialect, the lowest
// code that throws it, so the parser and evaluator need not import the Flux wiring above them;
// render/substitute.ts re-exports it.
import { FluxlensError } from '../../errors.js';

export class SubstitutionError extends FluxlensError {
  /** The variable a strict-mode failure is about (a name, never a value). */
  readonly variable: string | undefined;
  /** The message is already in kustomize-controller's words ("post build failed for ..."). */
  readonly fluxWorded: boolean;

  constructor(
    message: string,
    options: {
      variable?: string;
      cause?: unknown;
      fluxWorded?: boolean;
      /** One of fluxlens's bounds (substitution-budget.ts) rather than a defect Flux reports. */
      limit?: boolean;
    } = {},
  ) {
    super(
      options.limit === true ? 'limit-exceeded' : 'invalid-content',
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'SubstitutionError';
    this.variable = options.variable;
    this.fluxWorded = options.fluxWorded ?? false;
  }
}
