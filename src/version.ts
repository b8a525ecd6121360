/**
 * The version of fluxlens: package.json's, the one place it is set (a release's tag names
 * it). Read as JSON at build time: the bundle carries the value, and tsc writes the file it
 * was read from beside its output (dist/package.json), so both builds report what was built.
 */
import manifest from '../package.json' with { type: 'json' };

export const FLUXLENS_VERSION: string = manifest.version;
