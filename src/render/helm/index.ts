/**
 * render/helm/ inflates a HelmRelease as helm-controller would: values composition, `helm
 * template` and post-renderers, on a chart that chart/ fetches. It knows no Kustomization.
 */
export {
  type ChartSourceContext,
  ChartUnavailableError,
  isolatedHelmHome,
  RememberedChart,
  resolveChart,
  type ResolvedChart,
  stillRemembered,
} from './chart/index.js';
// The registry client the image check (render/image-registry/) shares with chart pulls.
export {
  credentialNote,
  describeUrl,
  fetchChartResponse,
  type FetchLimits,
  fetchRegistryToken,
  isLoopbackHost,
  parseChallenge,
} from './chart/index.js';
export { HelmRelease, releaseName, releaseNamespace } from './helm-release.js';
export { postRender } from './post-render.js';
export { releaseSecretValues, type SecretKeysLookup } from './release-secret-values.js';
export { chartCrdsMode, helmTemplate, sourceHeaders, takeTemplateSource } from './template.js';
export type { TemplateCache } from './template.js';
export { type ConfigLookup, chartDefaultValues, composeValues } from './values.js';
export { parseStrictVersion } from './semver-constraint.js';
