/**
 * The error chart resolution throws when fluxlens could not have what Flux may well get:
 * the network (DNS, refused, timeout, a server error), credentials (401, 403), one of
 * fluxlens's own bounds or refusals, a source it cannot see, or an offline cache miss. The
 * renderer reports it against that HelmRelease with the `chart-unavailable` code, which
 * makes the producer unassessed rather than broken; a defect Flux would fail on too is a
 * ChartContentError. Messages name sources and URLs without credentials or query strings.
 */
import { FluxlensError } from '../../../errors.js';
import type { RememberedChart } from './remembered-chart.js';

export class ChartUnavailableError extends FluxlensError {
  /** Only missing from the cache of an offline render: Flux would simply fetch it. */
  readonly notCached: boolean;
  /** The memory's record of this failure, when the memory holds it (unavailable-memory.ts). */
  readonly remembered: RememberedChart | undefined;

  constructor(
    detail: string,
    options?: { cause?: unknown; notCached?: boolean; remembered?: RememberedChart },
  ) {
    super('chart-unavailable', `chart unavailable: ${detail}`, options);
    this.name = 'ChartUnavailableError';
    this.notCached = options?.notCached ?? false;
    this.remembered = options?.remembered;
  }
}
