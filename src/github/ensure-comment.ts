/**
 * The sticky comment: one comment per PR that carries our hidden marker and is written
 * by us. A comment by anyone else is never edited, even when it quotes the marker.
 */
import { GitHubError } from './github-error.js';
import { Comment, Id } from './schemas.js';
import type {
  CommentInput,
  CommentOutcome,
  CommentTarget,
  FoundComment,
  Identity,
  WriterContext,
} from './types.js';

/**
 * An App installation token found the marked comments of more than one App: which is its
 * own cannot be told, and a guess could edit another App's or start a second one.
 */
export class CommentAuthorUnknownError extends GitHubError {
  readonly authors: readonly string[];
  constructor(authors: readonly string[]) {
    super(`the marked comments of several Apps are on the pull request (${authors.join(', ')})`, {
      transient: false,
    });
    this.name = 'CommentAuthorUnknownError';
    this.authors = authors;
  }
}

/**
 * Whether `comment` may be ours. By login when we know it; otherwise only a comment an App
 * wrote: its author is a Bot and GitHub names the App in `performed_via_github_app`, which
 * no person's comment has.
 */
function mayBeOurs(comment: Comment, identity: Identity): boolean {
  if (identity.kind === 'login') {
    return comment.user?.login.toLowerCase() === identity.login.toLowerCase();
  }
  return comment.user?.type === 'Bot' && comment.performed_via_github_app != null;
}

export async function findComment(
  ctx: WriterContext,
  target: CommentTarget,
): Promise<FoundComment | undefined> {
  if (target.marker.trim() === '') throw new Error('a sticky comment needs a non-empty marker');
  const identity = await ctx.identity();
  const pages = ctx.octokit.paginate.iterator(ctx.octokit.rest.issues.listComments, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    per_page: ctx.pageSize,
  });
  const candidates: (FoundComment & { author: string })[] = [];
  for await (const { data } of pages) {
    for (const raw of data) {
      const comment = Comment.parse(raw);
      const body = comment.body ?? '';
      if (!body.includes(target.marker) || !mayBeOurs(comment, identity)) continue;
      if (identity.kind === 'login') return { id: comment.id, body };
      candidates.push({ id: comment.id, body, author: comment.user?.login.toLowerCase() ?? '' });
    }
  }
  const authors = [...new Set(candidates.map((c) => c.author))].sort();
  if (authors.length > 1) throw new CommentAuthorUnknownError(authors);
  const first = candidates[0];
  return first === undefined ? undefined : { id: first.id, body: first.body };
}

export async function ensureComment(
  ctx: WriterContext,
  input: CommentInput,
): Promise<CommentOutcome> {
  const body = input.body.includes(input.marker) ? input.body : `${input.marker}\n${input.body}`;
  const found = await findComment(ctx, input);
  const { owner, repo } = input;
  if (found?.body === body) return { id: found.id, action: 'unchanged' };
  if (found) {
    await ctx.octokit.rest.issues.updateComment({ owner, repo, comment_id: found.id, body });
    return { id: found.id, action: 'updated' };
  }
  const created = await ctx.octokit.rest.issues.createComment({
    owner,
    repo,
    issue_number: input.issueNumber,
    body,
  });
  return { id: Id.parse(created.data).id, action: 'created' };
}
