/**
 * The one error chart resolution throws: the chart of a HelmRelease cannot be had (not
 * found, not reachable, not allowed, not cached while offline). The renderer reports it
 * against that HelmRelease; messages name sources and URLs without credentials or query
 * strings, never secrets.
 */
import { FluxlensError } from '../../errors.js';
export class ChartUnavailableError extends FluxlensError {
  /** Only missing from the cache of an offline render: Flux would simply fetch it. */
  readonly notCached: boolean;

  constructor(detail: string, options?: { cause?: unknown; notCached?: boolean }) {
    super('chart-unavailable', `chart unavailable: ${detail}`, options);
    this.name = 'ChartUnavailableError';
    this.notCached = options?.notCached ?? false;
  }
}
