/**
 * Which forge a job's pull request lives on, and how a review talks to it there: GitHub
 * by the configured mode, every other forge with commit statuses.
 */
import { join } from 'node:path';
import { SetupError } from '../errors.js';
import type { ForgeClient } from '../forges/index.js';
import { forgeOf } from '../model/index.js';
import type { PullRef } from '../queue/index.js';
import type { ReviewDeps, ReviewSettings } from './types.js';

export interface ForgeOfPull {
  client: ForgeClient;
  /** Check runs (`app`) or commit statuses (`token`). */
  mode: ReviewSettings['mode'];
  gitUrl: string;
  /**
   * Holds the forge's mirrors: GitHub's in the cache folder itself, another forge's in a
   * folder of its own, so one owner/repo on two forges are two mirrors.
   */
  mirrorCacheDir: string;
}

type Forges = Pick<ReviewDeps, 'github' | 'forges'>;

/** The client and mode of the pull request's forge; what skips and reactions need. */
export function forgeClientFor(
  pull: PullRef,
  deps: Forges & { mode: ReviewSettings['mode'] },
): Pick<ForgeOfPull, 'client' | 'mode'> {
  const name = forgeOf(pull);
  if (name === 'github') {
    if (deps.github === undefined) {
      throw new SetupError('a review of a GitHub pull request, but no GitHub credentials are set');
    }
    return { client: deps.github, mode: deps.mode };
  }
  const forge = deps.forges?.[name];
  if (forge === undefined) {
    throw new SetupError(`a review of a ${name} pull request, but no ${name} forge is configured`);
  }
  return { client: forge.client, mode: 'token' };
}

export function forgeFor(
  pull: PullRef,
  deps: Forges & { settings: Pick<ReviewSettings, 'mode' | 'gitUrl' | 'cacheDir'> },
): ForgeOfPull {
  const { mode, gitUrl, cacheDir } = deps.settings;
  const found = forgeClientFor(pull, { ...deps, mode });
  const name = forgeOf(pull);
  if (name === 'github') return { ...found, gitUrl, mirrorCacheDir: cacheDir };
  return {
    ...found,
    gitUrl: deps.forges?.[name]?.gitUrl ?? '',
    mirrorCacheDir: join(cacheDir, 'forges', name),
  };
}

/** GitHub's client, for what only GitHub serves (a branch review, one entry's render). */
export function gitHubOf(deps: Forges, what: string): NonNullable<ReviewDeps['github']> {
  if (deps.github === undefined) {
    throw new SetupError(`${what} of a GitHub repository, but no GitHub credentials are set`);
  }
  return deps.github;
}
