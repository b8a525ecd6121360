/**
 * Binds the write-back functions to one installation's client, and turns whatever they
 * throw into a GitHubError (with known secrets scrubbed from its message).
 */
import { addReaction } from './add-reaction.js';
import { ensureCheckRun } from './ensure-check-run.js';
import { ensureComment, findComment } from './ensure-comment.js';
import { ensureStatus } from './ensure-status.js';
import { getPull, listOpenPulls } from './get-pull.js';
import { toGitHubError } from './github-error.js';
import { listInstallationRepos } from './list-installation-repos.js';
import { mayWrite } from './may-write.js';
import type { GitHubWriter, WriterContext } from './types.js';

export function createGitHubWriter(ctx: WriterContext, secrets: readonly string[]): GitHubWriter {
  const guarded =
    <A extends unknown[], R>(fn: (ctx: WriterContext, ...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(ctx, ...args);
      } catch (err) {
        throw toGitHubError(err, secrets);
      }
    };
  return {
    ensureCheckRun: guarded(ensureCheckRun),
    ensureStatus: guarded(ensureStatus),
    ensureComment: guarded(ensureComment),
    findComment: guarded(findComment),
    addReaction: guarded(addReaction),
    getPull: guarded(getPull),
    mayWrite: guarded(mayWrite),
    listOpenPulls: guarded(listOpenPulls),
    listInstallationRepos: guarded(listInstallationRepos),
  };
}
