/**
 * The sticky comment: one comment per PR that carries our hidden marker and is written
 * by us. A comment by anyone else is never edited, even when it quotes the marker.
 */
import { CommentSchema, IdSchema } from './schemas.js';
import type {
  CommentInput,
  CommentOutcome,
  CommentTarget,
  FoundComment,
  WriterContext,
} from './types.js';

export async function findComment(
  ctx: WriterContext,
  target: CommentTarget,
): Promise<FoundComment | undefined> {
  if (target.marker.trim() === '') throw new Error('a sticky comment needs a non-empty marker');
  const ours = (await ctx.identity()).toLowerCase();
  const pages = ctx.octokit.paginate.iterator(ctx.octokit.rest.issues.listComments, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    per_page: ctx.pageSize,
  });
  for await (const { data } of pages) {
    for (const raw of data) {
      const comment = CommentSchema.parse(raw);
      const body = comment.body ?? '';
      if (comment.user?.login.toLowerCase() === ours && body.includes(target.marker)) {
        return { id: comment.id, body };
      }
    }
  }
  return undefined;
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
  return { id: IdSchema.parse(created.data).id, action: 'created' };
}
