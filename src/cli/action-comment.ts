/**
 * The Action's sticky comment: the same marker and the same size-bounded Markdown as the
 * service's, upserted with the workflow's token or an App's. A token that may not write (a
 * fork's read-only GITHUB_TOKEN), or an App token that cannot tell its comment from other
 * Apps', is a warning, not a failure: the report is in the job summary.
 */
import { CommentAuthorUnknownError, createGitHubClient, GitHubError } from '../github/index.js';
import type { AnalysisResult } from '../model/index.js';
import { COMMENT_MARKER, stickyCommentBody } from '../review/index.js';
import type { ActionContext } from './action-context.js';

export type CommentResult =
  | { written: true; action: 'created' | 'updated' | 'unchanged' }
  | { written: false; warning: string };

/** The comment body, linking the run's page (where the job summary is) when it is known. */
function commentBody(result: AnalysisResult, runUrl: string | undefined): string {
  return stickyCommentBody(runUrl === undefined ? result : { ...result, reportUrl: runUrl });
}

export async function upsertComment(
  ctx: ActionContext,
  result: AnalysisResult,
  stderr: (text: string) => void,
): Promise<CommentResult> {
  if (ctx.token === undefined) {
    return { written: false, warning: 'no token was given, so the sticky comment is not written' };
  }
  const say = (_fields: unknown, message?: string) => stderr(`fluxlens: ${message ?? ''}\n`);
  const client = createGitHubClient({
    apiUrl: ctx.apiUrl,
    auth: { kind: 'token', token: ctx.token },
    ...(ctx.login === undefined ? {} : { login: ctx.login }),
    // Retries and rate-limit waits are worth a line in the log; fields may hold anything.
    logger: { debug: () => {}, info: () => {}, warn: say, error: say },
  });
  try {
    const outcome = await client.forInstallation().ensureComment({
      owner: ctx.owner,
      repo: ctx.repo,
      issueNumber: ctx.pullNumber,
      marker: COMMENT_MARKER,
      body: commentBody(result, ctx.runUrl),
    });
    return { written: true, action: outcome.action };
  } catch (err) {
    if (err instanceof CommentAuthorUnknownError) {
      return {
        written: false,
        warning:
          `the sticky comment is not written: ${err.message}, and this token's own login is ` +
          'not known; set the comment-author input to it (the App slug followed by [bot])',
      };
    }
    if (!(err instanceof GitHubError) || err.status !== 403) throw err;
    const why = ctx.fromFork ? '; a pull request from a fork gets a read-only GITHUB_TOKEN' : '';
    return {
      written: false,
      warning: `the sticky comment is not written (${err.message})${why}; the report is in the job summary`,
    };
  }
}
