/**
 * render/flux-local/ drives flux-local as the alternative engine and reads its output back
 * into our model; it re-implements nothing of Flux that render/flux/ already holds.
 */
export { FluxLocalEngine } from './engine.js';
export { namedKustomizations } from './failure.js';
export { parseKustomizationTable } from './output.js';
export { FLUX_LOCAL_RUN } from './producers.js';
