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
