/**
 * The event rules of Gitea and Forgejo webhooks (one payload format): which deliveries
 * start, cancel or skip a review, as the GitHub rules decide them. A pure function of the
 * event, its payload and the settings; a command's author is checked afterwards, by the
 * caller, because Gitea's payloads do not say who may push.
 */
import { z } from 'zod';
import type { PullRef, ReviewReason } from '../queue/index.js';
import { Id, Repository, Sha } from './event-schemas.js';
import { hasRenderCommand } from './render-command.js';
import type { EventDecision, EventSettings } from './types.js';
import { repositoryKey } from '../model/index.js';

// Gitea names a repository as GitHub does: one schema for both.
const Branch = z.object({ ref: z.string().min(1).max(255), sha: Sha, repo_id: Id });

const PullRequestEvent = z.object({
  action: z.string(),
  repository: Repository,
  pull_request: z.object({
    number: Id,
    draft: z.boolean().optional(),
    head: Branch,
    base: Branch,
  }),
});

const IssueCommentEvent = z.object({
  action: z.string(),
  repository: Repository,
  issue: z.object({
    number: Id,
    /** Set only when the issue is a pull request. */
    pull_request: z.object({}).nullable().optional(),
  }),
  comment: z.object({
    id: Id,
    body: z.string().nullable(),
    user: z.object({ login: z.string().max(100) }),
  }),
});

/** Gitea's pull_request actions that ask for a review of the head (`synchronized` is a push). */
const REVIEW_ACTIONS = new Map<string, ReviewReason>([
  ['opened', 'opened'],
  ['synchronized', 'synchronize'],
  ['reopened', 'reopened'],
]);

/** What the rules decided, and for a command the author whose write access must be checked. */
export interface GiteaDecision {
  decision: EventDecision;
  commandAuthor?: { owner: string; repo: string; login: string };
}

export function giteaJobForEvent(
  event: string,
  payload: unknown,
  settings: EventSettings,
): GiteaDecision {
  switch (event) {
    case 'pull_request':
      return parsed(PullRequestEvent, payload, (p) => ({ decision: forPullRequest(p, settings) }));
    case 'issue_comment':
      return parsed(IssueCommentEvent, payload, (p) => forComment(p, settings));
    default:
      return { decision: ignore(`unhandled event ${event}`) };
  }
}

function parsed<S extends z.ZodType>(
  schema: S,
  payload: unknown,
  decide: (p: z.infer<S>) => GiteaDecision,
): GiteaDecision {
  const result = schema.safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0];
    const reason = `${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`;
    return { decision: { action: 'invalid', reason } };
  }
  return decide(result.data);
}

function forPullRequest(
  p: z.infer<typeof PullRequestEvent>,
  settings: EventSettings,
): EventDecision {
  if (!allowed(p.repository, settings)) return ignore('repository not in allowlist');
  const pull = pullOf(p.repository, p.pull_request.number);
  if (p.action === 'closed') return { action: 'cancel', pull };
  const reason = REVIEW_ACTIONS.get(p.action);
  if (reason === undefined) return ignore(`pull_request ${p.action}`);
  const pr = p.pull_request;
  if (pr.draft === true && !settings.renderDrafts) {
    return { action: 'skip', reason: 'draft', pull, headSha: pr.head.sha };
  }
  if (pr.head.repo_id !== pr.base.repo_id && !settings.renderForks) {
    return { action: 'skip', reason: 'fork', pull, headSha: pr.head.sha };
  }
  const job = {
    pull,
    deliveryId: settings.deliveryId,
    requestedAt: settings.requestedAt,
    headSha: pr.head.sha,
    baseRef: pr.base.ref,
    reason,
    explicit: false,
  };
  return { action: 'enqueue', jobs: [job] };
}

function forComment(p: z.infer<typeof IssueCommentEvent>, settings: EventSettings): GiteaDecision {
  const skip = (reason: string): GiteaDecision => ({ decision: ignore(reason) });
  if (p.action !== 'created') return skip(`issue_comment ${p.action}`);
  if (p.issue.pull_request == null) return skip('comment on an issue');
  if (!hasRenderCommand(p.comment.body)) return skip('comment without command');
  const login = p.comment.user.login;
  if (settings.ownLogin !== undefined && login.toLowerCase() === settings.ownLogin.toLowerCase()) {
    return skip('command in our own comment');
  }
  if (!allowed(p.repository, settings)) return skip('repository not in allowlist');
  const pull = pullOf(p.repository, p.issue.number);
  const job = {
    pull,
    deliveryId: settings.deliveryId,
    requestedAt: settings.requestedAt,
    reason: 'comment-command' as const,
    explicit: true,
  };
  return {
    decision: { action: 'enqueue', jobs: [job], react: { pull, commentId: p.comment.id } },
    commandAuthor: { owner: pull.owner, repo: pull.repo, login },
  };
}

type Repo = z.infer<typeof Repository>;

function allowed(repository: Repo, settings: EventSettings): boolean {
  return (
    settings.allowlist === undefined ||
    settings.allowlist.has(repositoryKey(repository.owner.login, repository.name))
  );
}

function pullOf(repository: Repo, pullNumber: number): PullRef {
  return { forge: 'gitea', owner: repository.owner.login, repo: repository.name, pullNumber };
}

function ignore(reason: string): EventDecision {
  return { action: 'ignore', reason };
}
