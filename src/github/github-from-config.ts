/** The service's GitHub client from its settings. */
import type { ServiceConfig } from '../config.js';
import { SetupError } from '../errors.js';
import type { LogSink } from '../logger.js';
import { createGitHubClient, type GitHubClient } from './create-github-client.js';

export function githubFromConfig(
  config: ServiceConfig,
  logger: LogSink,
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
