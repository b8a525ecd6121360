/** Paths inside a repository, as a policy, a flag or a job names a folder. */
import { isAbsolute, posix, relative, sep } from 'node:path';

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

/**
 * Whether the absolute, resolved `path` is `root` itself or lies below it; `strictly`: only
 * below it (a file must be inside a folder, a folder may be the root itself). Both are
 * compared as given: resolve links first (realpath) where a link could lead out.
 */
export function isInside(
  root: string,
  path: string,
  options: { strictly?: boolean } = {},
): boolean {
  const rel = relative(root, path);
  if (rel === '') return options.strictly !== true;
  return !isAbsolute(rel) && rel.split(sep)[0] !== '..';
}
