/**
 * Whether a failed flux-local HelmRelease run failed because the chart could not be
 * reached, rather than for something in the repository. flux-local reports helm's stderr
 * as text only, so this reads it: network and credential failures are unavailability
 * (the producer is not assessed); anything else (a missing version in a reachable index, a
 * template error) stays a content error the PR can introduce or fix.
 */
import type { RenderErrorTags } from '../../model/index.js';

const UNREACHABLE = [
  // helm template could not fetch the repository's index (flux-local adds the repository
  // first and goes on when that fails, so helm finds no index to read).
  /no cached repo found/i,
  /dial tcp|no such host|connection refused|connection reset|network is unreachable/i,
  /i\/o timeout|tls handshake timeout|context deadline exceeded|client\.timeout/i,
  /proxyconnect|x509: |certificate signed by unknown authority/i,
  /\b(401 unauthorized|403 forbidden|407 proxy|429 too many|50[0-4] )/i,
  /\bunauthorized: |denied: requested access|authentication required/i,
  /looks like "[^"]*" is not a valid chart repository or cannot be reached/i,
];

/** The tags for a failed run of a release whose chart is remote; none for a local chart. */
export function chartFailureTags(message: string, remoteChart: boolean): RenderErrorTags {
  if (!remoteChart) return {};
  return UNREACHABLE.some((pattern) => pattern.test(message)) ? { code: 'chart-unavailable' } : {};
}
