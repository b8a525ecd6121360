/** Tools for a review without a pull request: ask for one, then follow it to its result. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, json } from './answer.js';
import { format, job, owner, repo } from './inputs.js';
import { Refusal } from './refusal.js';
import { markdownOf } from './review-tools.js';
import type { McpDeps } from './types.js';

const revision = z.string().min(1).max(255);

export function registerRangeTools(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'review_branch',
    {
      title: 'Review a branch',
      description:
        'Queues a fluxlens review of a branch (or a commit) of a repository against a base branch, without a pull request: the same analysis a pull request gets. Returns a job id; follow it with review_status. Nothing is posted on GitHub.',
      inputSchema: {
        owner,
        repo,
        base: revision.describe('Base branch, as a pull request would merge into'),
        head: revision.describe('Head branch name, or a full commit SHA'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
    },
    (args) =>
      answer(deps.logger, 'review_branch', async () => {
        const range = { owner: args.owner, repo: args.repo, base: args.base, head: args.head };
        await deps.checkRepository(range);
        const outcome = await deps.reviewRange(range);
        if (outcome.jobId === undefined) throw new Refusal('the review was not queued');
        return json({ job: outcome.jobId, status: outcome.status, next: 'review_status' });
      }),
  );

  server.registerTool(
    'review_status',
    {
      title: 'Follow a review',
      description:
        "A queued review's state (waiting, active, completed, failed, cancelled); once a review_branch job has completed, its analysis: JSON as the API serves it, or the Markdown of a pull request comment.",
      inputSchema: { job, format },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(deps.logger, 'review_status', async () => {
        const state = await deps.jobState(args.job);
        if (state === undefined) throw new Refusal(`no job ${args.job}`);
        const stored =
          state.status === 'completed' && state.range !== undefined
            ? await deps.results.getRange(args.job)
            : undefined;
        if (stored === undefined) return json(state);
        if (args.format === 'markdown') {
          return `Job ${state.jobId}: ${state.status}\n\n${markdownOf(deps, stored.resultJson)}`;
        }
        return json({ ...state, result: JSON.parse(stored.resultJson) as unknown });
      }),
  );
}
