/**
 * render/helm/chart/ owns getting a HelmRelease's chart, as source-controller would: from the
 * repository, an HTTP chart repository or an OCI registry, with credentials, the network
 * bounds and the chart cache. It must not compose values or run `helm template`.
 */
export { type ResolvedChart } from './chart-source-context.js';
export { type ChartSourceContext, resolveChart } from './chart-source.js';
export { ChartUnavailableError } from './chart-unavailable-error.js';
export { isolatedHelmHome } from './oci-pull.js';
export { RememberedChart } from './remembered-chart.js';
export { stillRemembered } from './unavailable-memory.js';
// What the image check (render/image-registry/) asks registries with: the same bounds,
// address policy, credentials and token dance as a chart pull.
export { describeUrl, fetchChartResponse, type FetchLimits } from './chart-fetch.js';
export { credentialNote, isLoopbackHost } from './registry-credentials.js';
export { fetchRegistryToken, parseChallenge } from './registry-token.js';
