/**
 * Gitea and Forgejo (one client: they share the v1 API this uses) as a ForgeClient: commit
 * statuses, the sticky comment, reactions and pull-request reads with one token, which git
 * fetches with too. Every write is an upsert.
 */
import type {
  CommentInput,
  CommentOutcome,
  CommentTarget,
  FoundComment,
  ForgeClient,
  ForgeWriter,
  PullInfo,
  ReactionContent,
  RepoRef,
  StatusInput,
} from '../types.js';
import { giteaRequest, type GiteaApiOptions, type GiteaRequest } from './gitea-api.js';
import { Anything, Comment, Comments, Permission, Pull, User, Version } from './schemas.js';

/** Gitea keeps 255 characters of a status description; a line is plenty. */
const STATUS_DESCRIPTION_MAX = 255;

/** Permissions that may give a command: people who may push to the repository. */
const COMMAND_PERMISSIONS = new Set(['write', 'admin', 'owner']);

export interface ForgeVersion {
  /** Forgejo says so in its version (`11.0.1+gitea-1.22.0`); Gitea does not. */
  flavor: 'gitea' | 'forgejo';
  version: string;
}

export interface GiteaClient extends ForgeClient {
  forInstallation(): ForgeWriter;
  /** Which forge answers, and its version, from GET /version. */
  version(): Promise<ForgeVersion>;
  /** Our own login, looked up once; our comments are never commands. */
  login(): Promise<string>;
  /** Whether `login` may push to the repository, as `/fluxlens render` requires. */
  mayCommand(repo: RepoRef, login: string): Promise<boolean>;
}

export function createGiteaClient(options: GiteaApiOptions): GiteaClient {
  const request = giteaRequest(options);
  let me: Promise<string> | undefined;
  const login = (): Promise<string> => {
    me ??= request('GET', '/user', User).then(
      (u) => u.login,
      (err: unknown) => {
        me = undefined;
        throw err;
      },
    );
    return me;
  };
  const writer = createWriter(request, login);
  return {
    forInstallation: () => writer,
    installationToken: () => Promise.resolve(options.token),
    installationFor: () => Promise.resolve(undefined),
    version: async () => forgeVersion((await request('GET', '/version', Version)).version),
    login,
    mayCommand: async (repo, user) => {
      const path = `${repoPath(repo)}/collaborators/${encodeURIComponent(user)}/permission`;
      const { permission } = await request('GET', path, Permission);
      return COMMAND_PERMISSIONS.has(permission.toLowerCase());
    },
  };
}

/** Forgejo's version carries the Gitea version it branched from after `+gitea-`. */
export function forgeVersion(version: string): ForgeVersion {
  return { flavor: /\+gitea-/.test(version) ? 'forgejo' : 'gitea', version };
}

function repoPath(repo: RepoRef): string {
  return `/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}`;
}

function createWriter(request: GiteaRequest, login: () => Promise<string>): ForgeWriter {
  const findComment = async (target: CommentTarget): Promise<FoundComment | undefined> => {
    if (target.marker.trim() === '') throw new Error('a sticky comment needs a non-empty marker');
    const own = (await login()).toLowerCase();
    // Gitea answers every comment of the issue at once: this endpoint does not page.
    const comments = await request(
      'GET',
      `${repoPath(target)}/issues/${target.issueNumber}/comments`,
      Comments,
    );
    const ours = comments.find(
      (c) => (c.body ?? '').includes(target.marker) && c.user?.login.toLowerCase() === own,
    );
    return ours === undefined ? undefined : { id: ours.id, body: ours.body ?? '' };
  };
  return {
    ensureStatus: async (input: StatusInput) => {
      await request('POST', `${repoPath(input)}/statuses/${input.sha}`, Anything, {
        state: input.state,
        context: input.context,
        description: clipDescription(input.description),
        ...(input.targetUrl === undefined ? {} : { target_url: input.targetUrl }),
      });
    },
    findComment,
    ensureComment: async (input: CommentInput): Promise<CommentOutcome> => {
      const body = input.body.includes(input.marker)
        ? input.body
        : `${input.marker}\n${input.body}`;
      const found = await findComment(input);
      if (found?.body === body) return { id: found.id, action: 'unchanged' };
      if (found) {
        await request('PATCH', `${repoPath(input)}/issues/comments/${found.id}`, Anything, {
          body,
        });
        return { id: found.id, action: 'updated' };
      }
      const created = await request(
        'POST',
        `${repoPath(input)}/issues/${input.issueNumber}/comments`,
        Comment,
        { body },
      );
      return { id: created.id, action: 'created' };
    },
    addReaction: async (input: RepoRef & { commentId: number; content: ReactionContent }) => {
      // Gitea answers 200 for a reaction we already gave and 201 for a new one: twice is once.
      await request(
        'POST',
        `${repoPath(input)}/issues/comments/${input.commentId}/reactions`,
        Anything,
        { content: input.content },
      );
    },
    getPull: async (input: RepoRef & { pullNumber: number }): Promise<PullInfo> => {
      const pull = await request('GET', `${repoPath(input)}/pulls/${input.pullNumber}`, Pull);
      return {
        number: pull.number,
        state: pull.state,
        draft: pull.draft ?? false,
        headSha: pull.head.sha,
        headRef: pull.head.ref,
        baseRef: pull.base.ref,
        fromFork: pull.head.repo_id !== pull.base.repo_id,
      };
    },
  };
}

function clipDescription(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= STATUS_DESCRIPTION_MAX
    ? line
    : `${line.slice(0, STATUS_DESCRIPTION_MAX - 1)}…`;
}
