/**
 * render/builtin/ is the default engine: it discovers the Flux objects of a tree and builds
 * every Kustomization and HelmRelease itself, in dependency order, with kustomize and helm.
 * reuse/ holds what it takes from the review's other render or the render cache instead of
 * building it again.
 */
export { BuiltinEngine } from './engine.js';
export { keptRenderContext, keptRendersStillHold } from './reuse/index.js';
