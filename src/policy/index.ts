/**
 * policy/ owns the repository's `.fluxlens.yaml`: its schema and parser, the clusters it
 * names, and the failOn level. It reads text it is given; it must not read files or judge.
 */
export { clusterEntries, clustersAddedAtHead, type ClusterEntry } from './cluster-entries.js';
export { parsePolicy, POLICY_FILE } from './parse-policy.js';
export type { Policy } from './types.js';
