/**
 * git/ reads revisions of the reviewed repository: commits, merge-bases, files and trees
 * at a revision. It never writes to the repository (no checkout, no index, no refs).
 */
export { exportTree, resolveRevision } from './export-tree.js';
export {
  defaultBranch,
  mergeBase,
  resolveCommit,
  resolveRevisions,
  type ResolvedRevisions,
} from './merge-base.js';
export { readFileAtRevision, treeEntry } from './read-file.js';
export { repositoryUrl } from './remote-url.js';
export { repositoryRoot } from './repository-root.js';
