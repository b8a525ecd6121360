/**
 * Pull requests as the worker and the resync need them: head, base, draft, fork.
 */
import { Pull } from './schemas.js';
import type { PullInfo, RepoRef, WriterContext } from './types.js';

export function toPullInfo(raw: unknown): PullInfo {
  const pull = Pull.parse(raw);
  return {
    number: pull.number,
    state: pull.state,
    draft: pull.draft ?? false,
    headSha: pull.head.sha,
    headRef: pull.head.ref,
    baseRef: pull.base.ref,
    // A deleted fork leaves no head repository; it was not ours either.
    fromFork: pull.head.repo === null || pull.head.repo.full_name !== pull.base.repo.full_name,
  };
}

export async function getPull(
  ctx: WriterContext,
  input: RepoRef & { pullNumber: number },
): Promise<PullInfo> {
  const { data } = await ctx.octokit.rest.pulls.get({
    owner: input.owner,
    repo: input.repo,
    pull_number: input.pullNumber,
  });
  return toPullInfo(data);
}

export async function listOpenPulls(ctx: WriterContext, input: RepoRef): Promise<PullInfo[]> {
  const pulls = await ctx.octokit.paginate(ctx.octokit.rest.pulls.list, {
    owner: input.owner,
    repo: input.repo,
    state: 'open',
    per_page: ctx.pageSize,
  });
  return pulls.map(toPullInfo);
}
