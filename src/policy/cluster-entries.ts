/**
 * Which clusters one analysis reviews: the base policy's named clusters (and those the
 * PR's own policy adds), narrowed to the requested paths; else one per path; else the root.
 */
import { UsageError } from '../errors.js';
import { repositoryPath } from '../model/index.js';
import { parsePolicy, POLICY_FILE } from './parse-policy.js';
import type { Policy } from './types.js';

export interface ClusterEntry {
  name: string;
  path: string;
}

/**
 * The clusters a PR's own policy adds: a name and a path the base's policy does not list.
 * They are reviewed as new clusters (adding one relaxes nothing, and leaving it out would
 * pass a whole new cluster as "no changes"); the rest of the head's policy is never used,
 * and a head policy that cannot be read or parsed adds nothing. Only where the base lists
 * clusters: otherwise the root, which holds them all, is the one cluster reviewed.
 */
export async function clustersAddedAtHead(
  base: Policy,
  readHead: () => Promise<string | undefined>,
  knownRules: ReadonlySet<string>,
): Promise<ClusterEntry[]> {
  if (base.clusters.length === 0) return [];
  let head: Policy;
  try {
    const text = await readHead();
    if (text === undefined) return [];
    head = parsePolicy(text, knownRules);
  } catch (err) {
    if (err instanceof UsageError) return [];
    throw err;
  }
  return head.clusters
    .filter((c) => !base.clusters.some((b) => b.name === c.name || b.path === c.path))
    .map((c) => ({ name: c.name, path: c.path }));
}

/** The policy's clusters (narrowed to `paths` when given), else one per path, else the root. */
export function clusterEntries(
  clusters: readonly ClusterEntry[],
  paths: readonly string[],
): ClusterEntry[] {
  const wanted = [...new Set(paths.map(repoRelativePath))];
  let entries: ClusterEntry[];
  if (clusters.length === 0) {
    entries = (wanted.length > 0 ? wanted : ['.']).map((path) => ({ name: path, path }));
  } else if (wanted.length === 0) {
    entries = clusters.map((c) => ({ name: c.name, path: c.path }));
  } else {
    entries = wanted.map((path) => {
      const match = clusters.find((c) => c.path === path || c.name === path);
      if (!match) {
        const known = clusters.map((c) => `${c.name} (${c.path})`).join(', ');
        throw new UsageError(`path '${path}' is not a cluster in ${POLICY_FILE} (${known})`);
      }
      return { name: match.name, path: match.path };
    });
    entries = entries.filter((e, i) => entries.findIndex((o) => o.name === e.name) === i);
  }
  return entries.sort((a, b) => compare(a.name, b.name));
}

function repoRelativePath(path: string): string {
  const normalized = repositoryPath(path);
  if (normalized === undefined) {
    throw new UsageError(`path must be a folder inside the repository, got '${path}'`);
  }
  return normalized;
}

/** Code-unit order: the same on every machine, whatever its locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
