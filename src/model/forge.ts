/**
 * The forges fluxlens reviews pull requests on. A pull request is named by its forge with
 * its owner, repository and number: the same names on two forges are two pull requests.
 */
export const FORGE_NAMES = ['github', 'gitea'] as const;
export type ForgeName = (typeof FORGE_NAMES)[number];

/** A pull request that names no forge is GitHub's: jobs and links from before forges. */
const DEFAULT_FORGE: ForgeName = 'github';

export function forgeOf(pull: { forge?: ForgeName | undefined }): ForgeName {
  return pull.forge ?? DEFAULT_FORGE;
}
