/**
 * The seam review/ writes through (`GitHubWriter`, forges/'s ForgeWriter with GitHub's
 * extras) and its plain-data inputs and outcomes. Tests of review/ fake this interface;
 * the real one talks to GitHub.
 */
import type {
  CheckRunInput,
  CheckRunOutcome,
  ForgeWriter,
  PullInfo,
  RepoRef,
} from '../forges/index.js';
import type { GitHubOctokit } from './build-octokit.js';

export type {
  CheckRunInput,
  CheckRunOutcome,
  CommentInput,
  CommentOutcome,
  CommentTarget,
  FoundComment,
  PullInfo,
  ReactionContent,
  RepoRef,
  StatusInput,
} from '../forges/index.js';

export interface InstallationRepo extends RepoRef {
  archived: boolean;
}

/** Everything fluxlens does on GitHub for one installation (or the one token). */
export interface GitHubWriter extends ForgeWriter {
  /** Creates or updates the run named `fluxlens` on the head; twice gives one run. */
  ensureCheckRun(input: CheckRunInput): Promise<CheckRunOutcome>;
  listOpenPulls(input: RepoRef): Promise<PullInfo[]>;
  /** App mode only: the repositories this installation can reach, for the resync. */
  listInstallationRepos(): Promise<InstallationRepo[]>;
}

/**
 * Who a client writes as. GitHub will not tell an App installation token (the one
 * actions/create-github-app-token makes) its own login: GET /user answers 403 and GET /app
 * needs the App's key. Such a token writes as some App's bot, and the sticky comment is
 * then found by what GitHub sets on every comment an App writes.
 */
export type Identity = { kind: 'login'; login: string } | { kind: 'app-installation' };

/** What each write-back function gets: the client for one installation and who we are. */
export interface WriterContext {
  octokit: GitHubOctokit;
  mode: 'app' | 'token';
  /** In App mode, check runs by other Apps with our name are not ours. */
  appId?: number;
  /** Our own login (`slug[bot]` for an App), looked up once per client. */
  identity(): Promise<Identity>;
  pageSize: number;
}
