/**
 * The seam review/ writes through (`GitHubWriter`) and its plain-data inputs and
 * outcomes. Tests of review/ fake this interface; the real one talks to GitHub.
 */
import type { CheckRunConclusion, CheckRunOutput } from '../model/index.js';
import type { GitHubOctokit } from './build-octokit.js';

export interface RepoRef {
  owner: string;
  repo: string;
}

interface CheckRunTarget extends RepoRef {
  headSha: string;
  /** The check run's name: GitHub shows the newest run of each name on a commit. */
  name: string;
  /** Update this run instead of looking one up by head and name. */
  checkRunId?: number;
  detailsUrl?: string;
  externalId?: string;
}

export type CheckRunInput = CheckRunTarget &
  (
    | {
        status: 'queued' | 'in_progress';
        output?: CheckRunOutput;
        /** A run of this head already completed stays as it is instead of a new one opening. */
        keepCompleted?: boolean;
      }
    | { status: 'completed'; conclusion: CheckRunConclusion; output: CheckRunOutput }
  );

export interface CheckRunOutcome {
  id: number;
  action: 'created' | 'updated' | 'unchanged';
}

export interface StatusInput extends RepoRef {
  sha: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  /** Clipped to GitHub's 140 characters. */
  description: string;
  targetUrl?: string;
  /** The status's name on the commit; the caller names it, as it names a check run. */
  context: string;
}

export interface CommentTarget extends RepoRef {
  issueNumber: number;
  /** Hidden text (an HTML comment) that marks our sticky comment; never empty. */
  marker: string;
}

export interface CommentInput extends CommentTarget {
  /** The marker is put in front when the body lacks it. */
  body: string;
}

export interface FoundComment {
  id: number;
  body: string;
}

export interface CommentOutcome {
  id: number;
  action: 'created' | 'updated' | 'unchanged';
}

export type ReactionContent =
  | '+1'
  | '-1'
  | 'laugh'
  | 'confused'
  | 'heart'
  | 'hooray'
  | 'rocket'
  | 'eyes';

export interface PullInfo {
  number: number;
  state: 'open' | 'closed';
  draft: boolean;
  headSha: string;
  headRef: string;
  baseRef: string;
  /** The head branch lives in another repository (or its repository was deleted). */
  fromFork: boolean;
}

export interface InstallationRepo extends RepoRef {
  archived: boolean;
}

/** Everything fluxlens does on GitHub for one installation (or the one token). */
export interface GitHubWriter {
  /** Creates or updates the run named `fluxlens` on the head; twice gives one run. */
  ensureCheckRun(input: CheckRunInput): Promise<CheckRunOutcome>;
  /** Token mode's stand-in for a check run: the latest status per context counts. */
  ensureStatus(input: StatusInput): Promise<void>;
  /** The sticky comment: edits ours (marker and author both ours) or creates it. */
  ensureComment(input: CommentInput): Promise<CommentOutcome>;
  findComment(target: CommentTarget): Promise<FoundComment | undefined>;
  addReaction(input: RepoRef & { commentId: number; content: ReactionContent }): Promise<void>;
  getPull(input: RepoRef & { pullNumber: number }): Promise<PullInfo>;
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
