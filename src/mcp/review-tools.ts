/** Tools over stored reviews: a repository's latest, one PR's analysis, one finding explained. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RepositoryRef } from '../queue/index.js';
import { answer, json } from './answer.js';
import { format, job, owner, pull, repo } from './inputs.js';
import { Refusal } from './refusal.js';
import { changeOf, ResultView } from './result-view.js';
import type { McpDeps } from './types.js';

const MAX_LISTED = 50;
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

export function registerReviewTools(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'list_reviews',
    {
      title: 'Latest reviews of a repository',
      description:
        "The latest stored fluxlens reviews of a repository's pull requests, newest first: pull request, head commit, when, verdict and finding counts.",
      inputSchema: {
        owner,
        repo,
        limit: z.number().int().min(1).max(MAX_LISTED).default(20).describe('How many, at most'),
      },
      annotations: READ_ONLY,
    },
    (args) => answer(deps.logger, 'list_reviews', () => listReviews(deps, args, args.limit)),
  );

  server.registerTool(
    'get_review',
    {
      title: "A pull request's review",
      description:
        "One pull request's latest fluxlens review: the analysis as JSON (changes with their redacted diffs, findings, verdict), or the Markdown of the pull request comment.",
      inputSchema: { owner, repo, pull, format },
      annotations: READ_ONLY,
    },
    (args) =>
      answer(deps.logger, 'get_review', async () => {
        await deps.checkRepository(args);
        const resultJson = await storedResult(deps, { ...args });
        return args.format === 'markdown' ? markdownOf(deps, resultJson) : resultJson;
      }),
  );

  server.registerTool(
    'explain_finding',
    {
      title: 'Explain a finding',
      description:
        "One finding of a review explained: its rule and why the rule exists, the object it is about and that object's redacted diff. Name the review by owner, repo and pull, or by the job of review_branch; findings are numbered from 1 in the review's order.",
      inputSchema: {
        owner: owner.optional(),
        repo: repo.optional(),
        pull: pull.optional(),
        job: job.optional(),
        finding: z.number().int().min(1).max(100_000).describe('Finding number, from 1'),
      },
      annotations: READ_ONLY,
    },
    (args) =>
      answer(deps.logger, 'explain_finding', async () => {
        const resultJson = await reviewNamed(deps, args);
        return explainFinding(deps, resultJson, args.finding);
      }),
  );
}

async function listReviews(deps: McpDeps, repository: RepositoryRef, limit: number) {
  await deps.checkRepository(repository);
  const latest = await deps.results.list({ limit, repository });
  const reviews = [];
  for (const review of latest) {
    const parsed = ResultView.safeParse(JSON.parse(review.resultJson));
    const verdict = parsed.success ? parsed.data.verdict : undefined;
    reviews.push({
      pull: review.pull.pullNumber,
      headSha: review.headSha,
      storedAt: new Date(review.storedAt).toISOString(),
      ...(verdict && {
        verdict: verdict.level,
        headline: verdict.headline,
        counts: verdict.counts,
      }),
    });
  }
  return json({ repository: `${repository.owner}/${repository.repo}`, reviews });
}

async function storedResult(
  deps: McpDeps,
  target: RepositoryRef & { pull: number },
): Promise<string> {
  const stored = await deps.results.get({ ...target, pullNumber: target.pull });
  if (stored === undefined) {
    throw new Refusal(`no review of ${target.owner}/${target.repo}#${target.pull} is stored`);
  }
  return stored.resultJson;
}

export function markdownOf(deps: McpDeps, resultJson: string): string {
  if (deps.renderMarkdown === undefined) throw new Refusal('Markdown is not available here');
  return deps.renderMarkdown(resultJson);
}

/** The result a tool names: a PR's (owner, repo, pull) or a range job's (job). */
async function reviewNamed(
  deps: McpDeps,
  args: {
    owner?: string | undefined;
    repo?: string | undefined;
    pull?: number | undefined;
    job?: string | undefined;
  },
): Promise<string> {
  const { owner: o, repo: r, pull: p, job: j } = args;
  if (j !== undefined && o === undefined && r === undefined && p === undefined) {
    const stored = await deps.results.getRange(j);
    if (stored === undefined) throw new Refusal(`job ${j} has no stored review (yet)`);
    return stored.resultJson;
  }
  if (j === undefined && o !== undefined && r !== undefined && p !== undefined) {
    await deps.checkRepository({ owner: o, repo: r });
    return storedResult(deps, { owner: o, repo: r, pull: p });
  }
  throw new Refusal('name the review either by owner, repo and pull, or by job');
}

function explainFinding(deps: McpDeps, resultJson: string, number: number): string {
  const result = ResultView.parse(JSON.parse(resultJson));
  const finding = result.findings[number - 1];
  if (finding === undefined) {
    throw new Refusal(`the review has ${result.findings.length} findings; there is no ${number}`);
  }
  const rule = deps.rules.find((candidate) => candidate.id === finding.rule);
  const change = changeOf(result, finding);
  const { kind, namespace, name } = finding.resource;
  const lines = [
    `Finding ${number} of ${result.findings.length}: ${finding.level} ${finding.rule}`,
    `Cluster: ${finding.cluster}`,
    `Resource: ${[kind, namespace, name].filter((part) => part !== undefined).join('/')}`,
    ...(finding.file === undefined
      ? []
      : [`File: ${finding.file}${finding.line === undefined ? '' : `:${finding.line}`}`]),
    `What happens: ${finding.message}`,
    '',
    rule === undefined
      ? `Rule ${finding.rule}: not in this server's rule registry.`
      : `Rule ${rule.id} (${rule.family}, ${rule.level} by default): ${rule.description}`,
    '',
  ];
  if (change === undefined) {
    lines.push('The review has no diff for this object (it is about a producer or a render).');
  } else {
    lines.push(`Change: ${change.status} ${change.id}`);
    if (change.fields.length > 0) {
      lines.push('Changed fields:', ...change.fields.map((f) => `- ${f.path} (${f.change})`));
    }
    lines.push('', 'Diff (redacted):', '```diff', change.diff.trimEnd(), '```');
  }
  return `${lines.join('\n')}\n`;
}
