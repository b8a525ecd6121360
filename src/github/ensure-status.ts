/**
 * A commit status, token mode's stand-in for a check run. GitHub keeps every status
 * posted and shows the latest per context, so posting the same one again changes nothing
 * anyone sees.
 */
import type { StatusInput, WriterContext } from './types.js';

/** GitHub refuses a longer status description. */
export const STATUS_DESCRIPTION_MAX = 140;

function clipDescription(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= STATUS_DESCRIPTION_MAX
    ? line
    : `${line.slice(0, STATUS_DESCRIPTION_MAX - 1)}…`;
}

export async function ensureStatus(ctx: WriterContext, input: StatusInput): Promise<void> {
  await ctx.octokit.rest.repos.createCommitStatus({
    owner: input.owner,
    repo: input.repo,
    sha: input.sha,
    state: input.state,
    description: clipDescription(input.description),
    context: input.context,
    ...(input.targetUrl === undefined ? {} : { target_url: input.targetUrl }),
  });
}
