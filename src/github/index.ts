/**
 * Talking to GitHub's REST API (App or token, GitHub.com or Enterprise Server): check
 * runs, commit statuses, the sticky comment, reactions and pull-request reads, all writes
 * idempotent upserts. It must not render, judge, format reports or read process.env.
 */
export { createGitHubClient } from './create-github-client.js';
export type { GitHubClient, GitHubClientOptions } from './create-github-client.js';
export type { PacingOptions, RetryOptions } from './build-octokit.js';
export { GitHubError } from './github-error.js';
export { CommentAuthorUnknownError } from './ensure-comment.js';
export type {
  CheckRunInput,
  CheckRunOutcome,
  CommentInput,
  CommentOutcome,
  CommentTarget,
  FoundComment,
  GitHubWriter,
  InstallationRepo,
  PullInfo,
  ReactionContent,
  RepoRef,
  StatusInput,
} from './types.js';
export { githubFromConfig } from './github-from-config.js';
export { watchCredentials } from './watch-credentials.js';
export type { CredentialWatch, CredentialWatchOptions } from './watch-credentials.js';
