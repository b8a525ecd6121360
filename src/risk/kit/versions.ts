/**
 * Versions as semver reads their compatibility, and image references as the manifest
 * writes them: what the supply-chain rules compare, for rendered containers and for the
 * images of Helm values alike.
 */
import semver from 'semver';
import type { ImageRef } from '../../diff/index.js';

/**
 * The series within which a version-looking string (`v1.2.3`, `1.25-alpine`, `0.15.2`)
 * stays compatible, as semver reads it: the major version (`1`), or under major version
 * zero, where a minor release may break anything, `0.` and the minor (`0.15`); undefined
 * for what is not a version.
 */
export function seriesOf(version: string | undefined): string | undefined {
  if (!version || !/^v?\d+(\.\d+)*([-+._].*)?$/.test(version)) return undefined;
  return seriesOfVersion(semver.coerce(version));
}

export function seriesOfVersion(version: semver.SemVer | null | undefined): string | undefined {
  if (!version) return undefined;
  return version.major > 0 ? String(version.major) : `0.${version.minor}`;
}

/**
 * The repository as the manifest spells it (`nginx`, not parseImage's
 * `docker.io/library/nginx`): messages name what the author wrote.
 */
export function writtenRepository(image: string, ref: ImageRef): string {
  let name = image.trim();
  if (ref.digest !== undefined) name = name.slice(0, name.length - ref.digest.length - 1);
  if (ref.tag !== undefined) name = name.slice(0, name.length - ref.tag.length - 1);
  return name;
}

/** Whether two versions are in different compatible series (seriesOf): a breaking move. */
export function seriesChanged(
  from: string | undefined,
  to: string | undefined,
  series: (version: string | undefined) => string | undefined = seriesOf,
): boolean {
  const a = series(from);
  const b = series(to);
  return a !== undefined && b !== undefined && a !== b;
}

/** `a new major version`, or for a move within major version zero what semver says of it. */
export function breakingWords(to: string | undefined, series = seriesOf): string {
  return series(to)?.startsWith('0.')
    ? 'a new 0.x minor version, which semver lets break anything'
    : 'a new major version';
}
