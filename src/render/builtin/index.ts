/**
 * render/builtin/ is the default engine: it discovers the Flux objects of a tree and builds
 * every Kustomization and HelmRelease itself, in dependency order, with kustomize and helm.
 */
export { BuiltinEngine } from './engine.js';
