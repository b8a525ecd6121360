/**
 * GitHub's rules for the names that address a repository. A name that breaks them is not
 * GitHub's, so it is refused where it enters; none of them can be `.`, `..` or hold `/`,
 * `%` or anything outside ASCII.
 */

/**
 * A user or organization login: 1 to 39 ASCII letters, digits and hyphens, starting with a
 * letter or digit. GitHub's sign-up form also refuses consecutive hyphens and a trailing
 * one, but older accounts have both, and Enterprise Managed Users carry an `_shortcode`
 * suffix, so those are accepted.
 */
const OWNER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$/;

/** A repository name: 1 to 100 ASCII letters, digits, `.`, `_` and `-`, never `.` or `..`. */
const REPOSITORY = /^[A-Za-z0-9._-]{1,100}$/;

export function isOwnerName(name: string): boolean {
  return OWNER.test(name);
}

export function isRepositoryName(name: string): boolean {
  return REPOSITORY.test(name) && name !== '.' && name !== '..';
}

/**
 * The one key a repository is known by (`owner/repo`, lower-cased, as GitHub compares
 * names): allowlists are matched on it, whatever case a payload or a setting uses.
 */
export function repositoryKey(owner: string, repo: string): string {
  return `${owner}/${repo}`.toLowerCase();
}
