/**
 * git/ reads revisions of the reviewed repository: commits, merge-bases, files and trees
 * at a revision. It never writes to the user's repository (no checkout, no index, no refs);
 * the only repositories it writes are the worker's own bare mirrors under its cache.
 */
export { changedPaths } from './changed-paths.js';
export { exportTree, resolveRevision } from './export-tree.js';
export { listTree, type TreeFile } from './list-tree.js';
export { readBlobs, UnreadableBlobsError } from './read-blobs.js';
export { resolveRevisions, type ResolvedRevisions } from './merge-base.js';
export { ensureMirror, type Mirror, type MirrorRequest } from './mirror.js';
export { readFileAtRevision, treeEntry } from './read-file.js';
export { repositoryUrl } from './remote-url.js';
export { repositoryRoot } from './repository-root.js';
export { takeFileLock, type FileLock } from './repository-lock.js';
