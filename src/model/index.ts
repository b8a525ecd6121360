/**
 * model/ holds the vocabulary every step shares: rendered objects and their producers,
 * resource changes, findings and the analysis result, plus object identity and ordering.
 * It imports nothing and does nothing: no I/O, no rules, no formatting.
 */
export type * from './analysis.js';
export { ANALYSIS_SCHEMA_VERSION } from './analysis.js';
export type * from './change.js';
export type * from './check-run.js';
export { ACKNOWLEDGE_ACTION_ID } from './check-run.js';
export * from './finding.js';
export { findingId } from './finding-id.js';
export * from './render.js';
export type * from './registry-credentials.js';
export type * from './image-check.js';
export { compareStrings } from './compare.js';
export { FORGE_NAMES, forgeOf, type ForgeName } from './forge.js';
export { asRecord, isRecord, optional, stringOf } from './records.js';
export { isSopsEncrypted, readConfigData, sopsPlaceholder } from './config-data.js';
export { keyPath, listKey, listSegments, pairListItems, type ItemPair } from './list-items.js';
export { stringifyManifest, stringifyStream } from './manifest-text.js';
export { isOwnerName, isRepositoryName, repositoryKey } from './repository-name.js';
export { isInside, repositoryPath } from './repository-path.js';
export { resourceLabel } from './resource-label.js';
export { sameChangeKeys } from './same-change-keys.js';
export { plural } from './words.js';
