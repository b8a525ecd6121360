/** The service's GitHub client from its settings, and the one startup check of credentials. */
import type { ServiceConfig } from '../config.js';
import { errorMessage, SetupError } from '../errors.js';
import type { GitHubLogger } from './build-octokit.js';
import { createGitHubClient, type GitHubClient } from './create-github-client.js';

export function githubFromConfig(
  config: ServiceConfig,
  logger: GitHubLogger,
  onResponse?: (status: string) => void,
): GitHubClient {
  const { auth } = config.github;
  if (auth === undefined) {
    throw new SetupError(
      'invalid environment: set FLUXLENS_GITHUB_APP_ID with FLUXLENS_GITHUB_PRIVATE_KEY (a GitHub App), or FLUXLENS_GITHUB_TOKEN',
    );
  }
  return createGitHubClient({
    apiUrl: config.github.apiUrl,
    auth,
    logger,
    ...(onResponse ? { onResponse } : {}),
  });
}

/**
 * Checks the credentials once and says in one line whether GitHub accepts them. A
 * rejection is logged, not thrown: the process stays up for its health checks and retries.
 */
export async function checkCredentials(
  github: GitHubClient,
  logger: GitHubLogger & { error(fields: object, message: string): void },
): Promise<boolean> {
  try {
    const login = await github.verifyCredentials();
    logger.info({ login }, 'GitHub accepted the credentials');
    return true;
  } catch (err) {
    logger.error({ reason: errorMessage(err) }, 'GitHub rejected the credentials');
    return false;
  }
}
