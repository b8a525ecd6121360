/**
 * render/helm/ inflates a HelmRelease as helm-controller would: chart sources and fetches,
 * values composition, `helm template` and post-renderers. It knows no Kustomization.
 */
export { type ResolvedChart } from './chart-source-context.js';
export { type ChartSourceContext, resolveChart } from './chart-source.js';
export { ChartUnavailableError } from './chart-unavailable-error.js';
export { HelmRelease, releaseName, releaseNamespace } from './helm-release.js';
export { isolatedHelmHome } from './oci-pull.js';
export { postRender } from './post-render.js';
export { releaseSecretValues, type SecretKeysLookup } from './release-secret-values.js';
export { chartCrdsMode, helmTemplate, takeTemplateSource } from './template.js';
export type { TemplateCache } from './template.js';
export { type ConfigLookup, chartDefaultValues, composeValues } from './values.js';
export { parseStrictVersion } from './semver-constraint.js';
