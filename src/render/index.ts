/**
 * render/ owns Flux semantics: from a repository at one revision to the objects Flux
 * would apply, each attributed to its producer. It must not diff, judge or publish.
 */
import type { EngineDeps, EngineName, RenderEngine } from './engine.js';
import { BuiltinEngine } from './builtin/engine.js';
import { FluxLocalEngine } from './flux-local/engine.js';

export * from './engine.js';
export * from '../model/render.js';
export { parseSourceMapping, type SourceMapping } from './flux/sources.js';
export { renderToJson, renderToYaml } from './serialize.js';

export function createEngine(name: EngineName, deps: EngineDeps): RenderEngine {
  return name === 'flux-local' ? new FluxLocalEngine(deps) : new BuiltinEngine(deps);
}
