/**
 * render/builtin/reuse/ holds the builds and renders taken from the review's other render
 * or from the render cache instead of being run again: the content keys of producers and
 * builds, what a render read and which of it the other revision leaves as it was, the
 * files a revision's builds can read, the tools' versions, and a render kept whole. It
 * keys and looks up; it must not decide how a producer builds. cache/ is the mechanism
 * underneath.
 */
export { EngineReuse, type RenderReuse } from './engine-reuse.js';
export { keptRenderContext, keptRendersStillHold } from './kept-renders.js';
export {
  builtinTools,
  helmServerVersion,
  kustomizeServerVersion,
  type AskVersion,
} from './tool-version.js';
export { buildKey, producerKey, readBuildInputs, type KustomizeKeying } from './build-keys.js';
export { buildSpec, recordedReads, type BuildReadsRecord } from './carried-builds.js';
export { releasePreKey } from './carried-release.js';
export { withInputKey, type KeyedOutcome } from './input-key.js';
export { missingSourceKey, releaseKey, type ReleaseKeying } from './release-key.js';
