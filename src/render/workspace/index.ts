/**
 * render/workspace/ owns the scratch files of a render: a repository's tree at a revision
 * (or on disk) copied within limits into a temporary folder, and the copies, links and walks
 * the builds make there. It must not read Flux objects or run kustomize or helm.
 */
export { mapLimit } from './map-limit.js';
export { type FileSelector, materializeFiles, materializeRepository } from './materialize.js';
export {
  copyTree,
  isDirectory,
  keepsWholeTree,
  linkPaths,
  replaceFile,
  type TreeEntry,
  walkOnce,
  walkTree,
} from './tree.js';
export { createWorkspace, removeWorkspace } from './workspace.js';
