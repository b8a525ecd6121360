/**
 * A reaction on an issue comment (the `/fluxlens render` acknowledgement). GitHub answers
 * an existing reaction of ours with itself, so adding it twice leaves one.
 */
import type { ReactionContent, RepoRef, WriterContext } from './types.js';

export async function addReaction(
  ctx: WriterContext,
  input: RepoRef & { commentId: number; content: ReactionContent },
): Promise<void> {
  await ctx.octokit.rest.reactions.createForIssueComment({
    owner: input.owner,
    repo: input.repo,
    comment_id: input.commentId,
    content: input.content,
  });
}
