/** Tools for a review without a pull request: ask for one, then follow it to its result. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answer, json } from './answer.js';
import { format, job, owner, repo } from './inputs.js';
import { Refusal } from './refusal.js';
import { markdownOf } from './review-tools.js';
import type { McpDeps } from './types.js';

const revision = z.string().min(1).max(255);

const Rendered = z.object({
  rev: z.string(),
  sha: z.string(),
  path: z.string(),
  yaml: z.string(),
  errors: z.array(z.string()),
});

/** A render's YAML, after a header naming what it is and what did not render. */
function renderedText(jobId: string, stored: string): string {
  const { rev, sha, path, yaml, errors } = Rendered.parse(JSON.parse(stored));
  const header = [
    `# Job ${jobId}: ${path} at ${rev} (${sha})`,
    ...(errors.length === 0
      ? []
      : [`# Not rendered (${errors.length}):`, ...errors.map((error) => `#   ${error}`)]),
  ];
  return `${header.join('\n')}\n${yaml}`;
}

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
    'render_entry',
    {
      title: 'Render one entry',
      description:
        'Queues a render of one entry (a cluster folder such as clusters/production) of a repository at one revision, as `fluxlens render --rev REV --path PATH` prints it: the objects Flux would apply, as YAML with every Secret value redacted. Returns a job id; follow it with review_status. Long output is cut with a truncated marker.',
      inputSchema: {
        owner,
        repo,
        rev: revision.describe('Branch name, or a full commit SHA'),
        path: z.string().min(1).max(1024).describe('The entry folder, from the repository top'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
    },
    (args) =>
      answer(deps.logger, 'render_entry', async () => {
        const render = { owner: args.owner, repo: args.repo, rev: args.rev, path: args.path };
        await deps.checkRepository(render);
        const outcome = await deps.renderEntry(render);
        if (outcome.jobId === undefined) throw new Refusal('the render was not queued');
        return json({ job: outcome.jobId, status: outcome.status, next: 'review_status' });
      }),
  );

  server.registerTool(
    'review_status',
    {
      title: 'Follow a review',
      description:
        "A queued job's state (waiting, active, completed, failed, cancelled). Once a review_branch job has completed, its analysis: JSON as the API serves it, or the Markdown of a pull request comment; once a render_entry job has, the rendered YAML (its render errors first).",
      inputSchema: { job, format },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(deps.logger, 'review_status', async () => {
        const state = await deps.jobState(args.job);
        if (state === undefined) throw new Refusal(`no job ${args.job}`);
        const ownResult = state.range !== undefined || state.render !== undefined;
        const stored =
          state.status === 'completed' && ownResult
            ? await deps.results.getRange(args.job)
            : undefined;
        if (stored === undefined) return json(state);
        if (state.render !== undefined) return renderedText(state.jobId, stored.resultJson);
        if (args.format === 'markdown') {
          return `Job ${state.jobId}: ${state.status}\n\n${markdownOf(deps, stored.resultJson)}`;
        }
        return json({ ...state, result: JSON.parse(stored.resultJson) as unknown });
      }),
  );
}
