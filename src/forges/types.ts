/**
 * The seam between review/ (and the server's write-backs) and a forge: what one review
 * reads and writes on the forge, as plain data. github/ and gitea/ implement it; tests of
 * review/ fake it.
 */
import type { CheckRunConclusion, CheckRunOutput } from '../model/index.js';

export interface RepoRef {
  owner: string;
  repo: string;
}

/** A button on a check run (GitHub's requested action); pressing it sends a check_run event. */
export interface CheckRunAction {
  /** At most 20 characters. */
  label: string;
  /** At most 40 characters. */
  description: string;
  /** At most 20 characters: what the event's requested_action.identifier says. */
  identifier: string;
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
    | {
        status: 'completed';
        conclusion: CheckRunConclusion;
        output: CheckRunOutput;
        /** The buttons the run offers; a run written without them offers none. */
        actions?: readonly CheckRunAction[];
      }
  );

export interface CheckRunOutcome {
  id: number;
  action: 'created' | 'updated' | 'unchanged';
}

export interface StatusInput extends RepoRef {
  sha: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  /** Clipped to what the forge takes (GitHub: 140 characters). */
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

/** The reactions GitHub and Gitea/Forgejo both take on a comment. */
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

/** What one review writes and reads on its forge, for one installation (or the one token). */
export interface ForgeWriter {
  /**
   * Creates or updates the run named `fluxlens` on the head; twice gives one run. Only
   * forges with check runs have it (GitHub with an App).
   */
  ensureCheckRun?(input: CheckRunInput): Promise<CheckRunOutcome>;
  /** A commit status: the latest per context counts, so posting it twice changes nothing. */
  ensureStatus(input: StatusInput): Promise<void>;
  /** The sticky comment: edits ours (marker and author both ours) or creates it. */
  ensureComment(input: CommentInput): Promise<CommentOutcome>;
  findComment(target: CommentTarget): Promise<FoundComment | undefined>;
  addReaction(input: RepoRef & { commentId: number; content: ReactionContent }): Promise<void>;
  getPull(input: RepoRef & { pullNumber: number }): Promise<PullInfo>;
  /**
   * Whether `login` may push to the repository (admin, maintain or write). Only forges
   * whose events can come from someone the payload does not vouch for have it (GitHub).
   */
  mayWrite?(input: RepoRef & { login: string }): Promise<boolean>;
}

/**
 * A forge as a review uses it: a writer per installation (GitHub Apps have several; other
 * forges one), and the credential git fetches the repository with over HTTPS.
 */
export interface ForgeClient {
  forInstallation(installationId?: number): ForgeWriter;
  /** A token git sends as HTTP Basic (`x-access-token:TOKEN`); never put in a URL. */
  installationToken(installationId?: number): Promise<string>;
  /** For jobs that name only a repository (the API): its App installation, if any. */
  installationFor(repo: RepoRef): Promise<number | undefined>;
}
