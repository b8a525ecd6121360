/**
 * render/ owns Flux semantics: from a repository at one revision to the objects Flux
 * would apply, each attributed to its producer. It must not diff, judge or publish.
 */
import { BuiltinEngine } from './builtin/index.js';
export { keptRenderContext, keptRendersStillHold } from './builtin/index.js';
export { RenderCache, renderCacheKey } from './cache/index.js';
import type { EngineDeps, RenderEngine } from './engine.js';
import type { EngineName } from './settings.js';
import { FluxLocalEngine } from './flux-local/index.js';

export * from './engine.js';
export { parseSourceMapping, SourceMapping } from './source-mapping.js';
export { ignoreRuleOf, keepLastApplied } from './flux/index.js';
export { checkImages, type ImageCheckSettings } from './image-registry/index.js';
export * from './settings.js';

export function createEngine(name: EngineName, deps: EngineDeps): RenderEngine {
  return name === 'flux-local' ? new FluxLocalEngine(deps) : new BuiltinEngine(deps);
}
