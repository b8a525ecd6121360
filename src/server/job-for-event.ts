/**
 * The event rules: which GitHub events start, cancel or skip a review. A pure function of
 * the event name, its payload and the settings, so every rule is a row in a table test.
 */
import type { z } from 'zod';
import { ACKNOWLEDGE_ACTION_ID, optional, repositoryKey } from '../model/index.js';
import type { PullRef, ReviewJob, ReviewReason } from '../queue/index.js';
import {
  type CheckPull,
  CheckRunEvent,
  CheckSuiteEvent,
  InstallationEvent,
  IssueCommentEvent,
  PullRequestEvent,
} from './event-schemas.js';
import { hasRenderCommand } from './render-command.js';
import type { EventDecision, EventSettings } from './types.js';

/** pull_request actions that ask for a review of the PR's current head. */
const REVIEW_ACTIONS = new Map<string, ReviewReason>([
  ['opened', 'opened'],
  ['synchronize', 'synchronize'],
  ['reopened', 'reopened'],
  ['ready_for_review', 'ready_for_review'],
]);

/** Associations allowed to ask for a render: people with write access to the repository. */
const COMMAND_AUTHORS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

type Repository = PullRequestEvent['repository'];
type CommentEvent = z.infer<typeof IssueCommentEvent>;

export function jobForEvent(
  event: string,
  payload: unknown,
  settings: EventSettings,
): EventDecision {
  switch (event) {
    case 'pull_request':
      return parsed(PullRequestEvent, payload, (p) => forPullRequest(p, settings));
    case 'check_run':
      return parsed(CheckRunEvent, payload, (p) => forCheckRun(p, settings));
    case 'check_suite':
      return parsed(CheckSuiteEvent, payload, (p) => {
        if (p.action !== 'rerequested') return ignore(`check_suite ${p.action}`);
        if (!ourApp(p.check_suite.app, settings)) return ignore('check suite of another app');
        return forCheckPulls(p.repository, p.installation, p.check_suite.pull_requests, settings);
      });
    case 'issue_comment':
      return parsed(IssueCommentEvent, payload, (p) => forComment(p, settings));
    case 'installation':
    case 'installation_repositories':
      return parsed(InstallationEvent, payload, (p) => ({
        action: 'acknowledge',
        installationId: p.installation.id,
        change: `${event} ${p.action}`,
      }));
    default:
      return ignore(`unhandled event ${event}`);
  }
}

function parsed<S extends z.ZodType>(
  schema: S,
  payload: unknown,
  decide: (p: z.infer<S>) => EventDecision,
): EventDecision {
  const result = schema.safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { action: 'invalid', reason: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}` };
  }
  return decide(result.data);
}

function forPullRequest(p: PullRequestEvent, settings: EventSettings): EventDecision {
  if (!allowed(p.repository, settings)) return ignore('repository not in allowlist');
  const pull = pullOf(p.repository, p.pull_request.number);
  if (p.action === 'closed') return { action: 'cancel', pull };

  const baseChanged = p.action === 'edited' && p.changes?.base !== undefined;
  const reason = baseChanged ? 'base-changed' : REVIEW_ACTIONS.get(p.action);
  if (reason === undefined) return ignore(`pull_request ${p.action}`);

  const pr = p.pull_request;
  const installationId = p.installation?.id;
  const skip = { pull, headSha: pr.head.sha, ...optional('installationId', installationId) };
  if (pr.draft === true && !settings.renderDrafts)
    return { action: 'skip', reason: 'draft', ...skip };
  if (isFork(pr) && !settings.renderForks) return { action: 'skip', reason: 'fork', ...skip };

  return {
    action: 'enqueue',
    jobs: [
      {
        ...jobBase(pull, installationId, settings),
        headSha: pr.head.sha,
        baseRef: pr.base.ref,
        reason,
        // The head is unchanged, so a non-explicit job would be dropped as already reviewed.
        explicit: reason === 'base-changed',
      },
    ],
  };
}

function forCheckRun(p: CheckRunEvent, settings: EventSettings): EventDecision {
  const pressed = p.action === 'requested_action';
  if (p.action !== 'rerequested' && !pressed) return ignore(`check_run ${p.action}`);
  if (p.check_run.name !== settings.checkRunName) return ignore('check run of another name');
  if (!ourApp(p.check_run.app, settings)) return ignore('check run of another app');
  if (!pressed) {
    return forCheckPulls(p.repository, p.installation, p.check_run.pull_requests, settings);
  }
  if (p.requested_action?.identifier !== ACKNOWLEDGE_ACTION_ID) {
    return ignore('requested action of another identifier');
  }
  if (p.sender === undefined) return ignore('requested action without a sender');
  if (p.sender.type === 'Bot' || p.sender.login.toLowerCase().endsWith('[bot]')) {
    return ignore('acknowledgement from a bot');
  }
  // Whether the sender may push is asked of GitHub by the worker: the payload does not say.
  const acknowledge = { login: p.sender.login, at: settings.requestedAt };
  return forCheckPulls(p.repository, p.installation, p.check_run.pull_requests, settings, {
    reason: 'acknowledge',
    acknowledge,
  });
}

function forCheckPulls(
  repository: Repository,
  installation: { id: number } | undefined,
  pulls: CheckPull[],
  settings: EventSettings,
  why: Pick<ReviewJob, 'reason' | 'acknowledge'> = { reason: 'check-rerequested' },
): EventDecision {
  if (!allowed(repository, settings)) return ignore('repository not in allowlist');
  // GitHub lists only PRs whose head lives in this repository; the filter is for safety.
  const eligible = pulls.filter((pr) => settings.renderForks || !isFork(pr));
  if (eligible.length === 0) return ignore('no pull request to render');
  const jobs = eligible.map(
    (pr): ReviewJob => ({
      ...jobBase(pullOf(repository, pr.number), installation?.id, settings),
      headSha: pr.head.sha,
      baseRef: pr.base.ref,
      ...why,
      explicit: true,
    }),
  );
  return { action: 'enqueue', jobs };
}

function forComment(p: CommentEvent, settings: EventSettings): EventDecision {
  if (p.action !== 'created') return ignore(`issue_comment ${p.action}`);
  if (p.issue.pull_request == null) return ignore('comment on an issue');
  if (!hasRenderCommand(p.comment.body)) return ignore('comment without command');
  const author = authorKind(p.comment.user, settings);
  if (author === 'self') return ignore('command in our own comment');
  if (author === 'bot') return ignore('command from a bot not allowed to give commands');
  if (!COMMAND_AUTHORS.has(p.comment.author_association)) {
    return ignore('command from an author without write access');
  }
  if (!allowed(p.repository, settings)) return ignore('repository not in allowlist');
  const pull = pullOf(p.repository, p.issue.number);
  const installationId = p.installation?.id;
  // A comment names no commit: the worker reviews the PR's head and base as they are then.
  return {
    action: 'enqueue',
    jobs: [
      { ...jobBase(pull, installationId, settings), reason: 'comment-command', explicit: true },
    ],
    react: { pull, commentId: p.comment.id, ...optional('installationId', installationId) },
  };
}

/**
 * Our own comments quote the command (a loop otherwise), and another App's bot may hold
 * write access without anyone having meant it to give commands.
 */
function authorKind(
  user: CommentEvent['comment']['user'],
  settings: EventSettings,
): 'self' | 'bot' | 'person' {
  const login = user.login.toLowerCase();
  if (settings.ownLogin !== undefined && login === settings.ownLogin.toLowerCase()) return 'self';
  const bot = user.type === 'Bot' || login.endsWith('[bot]');
  return bot && !settings.commandBots.has(login) ? 'bot' : 'person';
}

function jobBase(
  pull: PullRef,
  installationId: number | undefined,
  settings: EventSettings,
): Pick<ReviewJob, 'pull' | 'installationId' | 'deliveryId' | 'requestedAt'> {
  return {
    pull,
    ...optional('installationId', installationId),
    deliveryId: settings.deliveryId,
    requestedAt: settings.requestedAt,
  };
}

/** A head without a repository (deleted fork) counts as a fork: we cannot vouch for it. */
function isFork(pr: { head: CheckPull['head']; base: CheckPull['base'] }): boolean {
  return pr.head.repo === null || pr.base.repo === null || pr.head.repo.id !== pr.base.repo.id;
}

function ourApp(app: { id: number } | null | undefined, settings: EventSettings): boolean {
  return settings.appId === undefined || app?.id === settings.appId;
}

function allowed(repository: Repository, settings: EventSettings): boolean {
  return (
    settings.allowlist === undefined ||
    settings.allowlist.has(repositoryKey(repository.owner.login, repository.name))
  );
}

function pullOf(repository: Repository, pullNumber: number): PullRef {
  return { owner: repository.owner.login, repo: repository.name, pullNumber };
}

function ignore(reason: string): EventDecision {
  return { action: 'ignore', reason };
}
