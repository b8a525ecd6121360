/**
 * Whether a person may push to a repository: what GitHub's check_run event does not say of
 * the one who pressed a requested action, and what acknowledging a finding requires.
 */
import { z } from 'zod';
import type { RepoRef, WriterContext } from './types.js';

/** `maintain` reads as `write` in this field; `triage` as `read`. */
const CollaboratorPermission = z.object({ permission: z.string() });

export async function mayWrite(
  ctx: WriterContext,
  input: RepoRef & { login: string },
): Promise<boolean> {
  const { data } = await ctx.octokit.request(
    'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
    { owner: input.owner, repo: input.repo, username: input.login },
  );
  const { permission } = CollaboratorPermission.parse(data);
  return permission === 'admin' || permission === 'write';
}
