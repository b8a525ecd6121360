/** Paths inside a repository, as a policy, a flag or a job names a folder. */
import { posix } from 'node:path';

/**
 * `path` as a normalised POSIX path inside the repository ('.' for the root, no trailing
 * slash), or undefined when it is absolute or climbs out with `..`: a repository's own
 * files and a PR author's input must never name a folder outside the checkout.
 */
export function repositoryPath(path: string): string | undefined {
  if (posix.isAbsolute(path)) return undefined;
  const normalized = posix.normalize(path).replace(/\/+$/, '') || '.';
  if (normalized === '..' || normalized.startsWith('../')) return undefined;
  return normalized;
}
