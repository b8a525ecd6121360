/**
 * A chart that Flux itself would fail on, for a reason in the repository or in what the
 * chart's source serves: a missing source or path, a version a reachable index or registry
 * lacks, an invalid Chart.yaml or archive. Unlike ChartUnavailableError it is a defect a
 * PR can introduce or fix, so it carries no `chart-unavailable` code to a RenderError.
 */
import { FluxlensError } from '../../../errors.js';

export class ChartContentError extends FluxlensError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super('invalid-content', `chart error: ${detail}`, options);
    this.name = 'ChartContentError';
  }
}
