/**
 * render/flux/ holds what both engines read of Flux itself: the object schemas, discovery
 * of Flux objects in a tree, source references resolved to folders, objects two producers
 * apply, and what the last-applied state keeps. It runs no tools.
 */
export { appliedTwiceErrors } from './applied-twice.js';
export { dependsOnCycles } from './depends-on-cycles.js';
export { discover } from './discover.js';
export { assumesBootstrap, withEntrySync } from './entry-sync.js';
export { generatesArtifact } from './external-artifact.js';
export { expandResourceSet, isResourceSet, resourceSetFacts } from './resource-set.js';
export {
  type InstanceSync,
  instanceSync,
  installsFluxInstance,
  releaseSyncPath,
  reviewedInstanceSync,
  withInstanceSyncs,
} from './flux-instance.js';
export {
  CommonMetadata,
  FluxKustomization,
  KUSTOMIZE_OVERLAY_FIELDS,
  SOURCE_KINDS,
  describeSchemaError,
  type Discovery,
  type FoundObject,
  isFluxKustomization,
  isHelmRelease,
} from './objects.js';
export { keepLastApplied } from './keep-last-applied.js';
export { KUSTOMIZATION_FILE_NAMES } from './kustomization-references.js';
export { refOf } from './ref-of.js';
export { ignoreRuleOf, SourceIgnore } from './source-ignore.js';
export { normalizeFluxPath, resolveInside, Sources } from './sources.js';
