/**
 * The repositories an App installation can reach, for the periodic resync of open PRs.
 */
import { GitHubError } from './github-error.js';
import { InstallationRepoData } from './schemas.js';
import type { InstallationRepo, WriterContext } from './types.js';

export async function listInstallationRepos(ctx: WriterContext): Promise<InstallationRepo[]> {
  if (ctx.mode !== 'app') {
    throw new GitHubError('listing installation repositories needs a GitHub App', {
      transient: false,
    });
  }
  const repos = await ctx.octokit.paginate(
    ctx.octokit.rest.apps.listReposAccessibleToInstallation,
    { per_page: ctx.pageSize },
  );
  return repos.map((raw) => {
    const repo = InstallationRepoData.parse(raw);
    return { owner: repo.owner.login, repo: repo.name, archived: repo.archived ?? false };
  });
}
