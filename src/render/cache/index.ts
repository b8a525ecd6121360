/**
 * render/cache/ keeps per-producer build results, and whole renders, by content key: on
 * disk, bounded and shared by every render on the machine, and in memory between the two
 * renders of one review. It must not decide what a key holds: the builders that use it do.
 */
export {
  RenderCache,
  renderCacheKey,
  type HoldOptions,
  type RenderCacheStats,
} from './render-cache.js';
export { RenderMemo, type MemoOutcome, type RenderMemoCounts } from './render-memo.js';
export { folderDigest, type FolderDigestLimits } from './folder-digest.js';
export { faithfulJson, readOutcome, writeOutcome } from './outcome-store.js';
export { reuse, reuseOrBuild, type OutcomeStores } from './reuse-or-build.js';
export { readCluster, writeCluster } from './cluster-store.js';
