/**
 * render/cache/ keeps per-producer build results by content key, on disk, bounded and
 * shared by every render on the machine. It must not decide what a key holds: the
 * builders that use it do.
 */
export { RenderCache, renderCacheKey, type RenderCacheStats } from './render-cache.js';
