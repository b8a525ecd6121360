/**
 * The in-memory state of the GitHub emulator (github-emulator.ts): plain JSON data, so a
 * test in another process can read it through GET /__emulator/state. Issued tokens live
 * outside it: nothing here holds a credential.
 */

export type AuthKind = 'jwt' | 'installation' | 'pat' | 'none' | 'invalid';

export interface RecordedRequest {
  method: string;
  /** Path without the API prefix and without the query string. */
  path: string;
  query: Record<string, string>;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
  auth: AuthKind;
  /** The client's User-Agent header ('' when it sent none). */
  userAgent: string;
  /** The installation whose token was used (auth `installation`). */
  installationId?: number;
  status: number;
}

export interface EmulatedInstallation {
  id: number;
  account: string;
  /** `owner/repo` names the installation can reach. */
  repositories: string[];
}

export interface EmulatedPull {
  owner: string;
  repo: string;
  number: number;
  state: 'open' | 'closed';
  draft: boolean;
  headSha: string;
  headRef: string;
  baseRef: string;
  /** The head lives in another repository (a fork). */
  fork: boolean;
}

export interface EmulatedAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: string;
  message: string;
  title?: string;
}

export interface EmulatedCheckRun {
  id: number;
  owner: string;
  repo: string;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  app_id: number;
  details_url: string | null;
  external_id: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: EmulatedAnnotation[];
  /** The buttons the run offers (requested actions); each write that names them replaces them. */
  actions: Array<{ label: string; description: string; identifier: string }>;
  /** Requests that created or updated the run, in order. */
  writes: number;
}

export interface EmulatedStatus {
  id: number;
  owner: string;
  repo: string;
  sha: string;
  state: string;
  description: string | null;
  target_url: string | null;
  context: string;
  creator: string;
}

export interface EmulatedComment {
  id: number;
  owner: string;
  repo: string;
  issueNumber: number;
  body: string;
  /** Login of the author (`slug[bot]` for an App). */
  author: string;
  authorType: 'User' | 'Bot';
  /** The App that wrote it (`performed_via_github_app`); null for a person's comment. */
  viaApp: { id: number; slug: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface EmulatedReaction {
  id: number;
  commentId: number;
  content: string;
  author: string;
}

export interface EmulatorState {
  installations: EmulatedInstallation[];
  pulls: EmulatedPull[];
  checkRuns: EmulatedCheckRun[];
  statuses: EmulatedStatus[];
  comments: EmulatedComment[];
  reactions: EmulatedReaction[];
  /**
   * Each collaborator's permission, by `owner/repo/login` (lower-case): admin, write, read
   * or none (GitHub's `permission` field: maintain reads as write, triage as read).
   */
  collaborators: Record<string, string>;
  /** How many installation tokens were issued, per installation id. */
  tokensIssued: Record<string, number>;
  requests: RecordedRequest[];
}

export function emptyState(): EmulatorState {
  return {
    installations: [],
    pulls: [],
    checkRuns: [],
    statuses: [],
    comments: [],
    reactions: [],
    collaborators: {},
    tokensIssued: {},
    requests: [],
  };
}

export interface PullSeed {
  owner: string;
  repo: string;
  number: number;
  headSha: string;
  headRef?: string;
  baseRef?: string;
  draft?: boolean;
  fork?: boolean;
  state?: 'open' | 'closed';
}

export function pullFromSeed(seed: PullSeed): EmulatedPull {
  return {
    owner: seed.owner,
    repo: seed.repo,
    number: seed.number,
    state: seed.state ?? 'open',
    draft: seed.draft ?? false,
    headSha: seed.headSha,
    headRef: seed.headRef ?? `branch-${seed.number}`,
    baseRef: seed.baseRef ?? 'main',
    fork: seed.fork ?? false,
  };
}
