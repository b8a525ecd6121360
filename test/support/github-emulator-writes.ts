/**
 * The GitHub emulator's other write routes: commit statuses, issue comments (at most
 * 65536 characters, only the author may edit) and reactions (one per user and content).
 */
import { checkRunRoutes } from './github-emulator-check-runs.js';
import { commentJson, reactionJson, statusJson } from './github-emulator-json.js';
import {
  type Route,
  type RouteContext,
  type RouteResult,
  errorResult,
  paginate,
  text,
  validationFailed,
} from './github-emulator-routes.js';

const MAX_COMMENT = 65536;
const STATUS_STATES = ['pending', 'success', 'failure', 'error'];

const statusRoutes: Route[] = [
  {
    method: 'POST',
    pattern: '/repos/:owner/:repo/statuses/:sha',
    auth: 'repo',
    handle: (ctx) => {
      const state = text(ctx.body.state);
      if (!state || !STATUS_STATES.includes(state))
        return validationFailed('Status', 'state', 'invalid state');
      const description = text(ctx.body.description) ?? null;
      if (description !== null && description.length > 140) {
        return validationFailed(
          'Status',
          'description',
          'description is too long (maximum is 140 characters)',
        );
      }
      const status = {
        id: ctx.nextId(),
        owner: ctx.params.owner ?? '',
        repo: ctx.params.repo ?? '',
        sha: ctx.params.sha ?? '',
        state,
        description,
        target_url: text(ctx.body.target_url) ?? null,
        context: text(ctx.body.context) ?? 'default',
        creator: ctx.caller.login,
      };
      ctx.state.statuses.push(status);
      return { status: 201, body: statusJson(status) };
    },
  },
];

function commentBody(ctx: RouteContext): string | RouteResult {
  const body = text(ctx.body.body);
  if (body === undefined) return validationFailed('IssueComment', 'body', 'body is missing');
  if (body.length > MAX_COMMENT) {
    return validationFailed(
      'IssueComment',
      'body',
      `body is too long (maximum is ${MAX_COMMENT} characters)`,
    );
  }
  return body;
}

const commentRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/issues/:number/comments',
    auth: 'repo',
    handle: (ctx) => {
      const { owner, repo, number } = ctx.params;
      const comments = ctx.state.comments
        .filter((c) => c.owner === owner && c.repo === repo && c.issueNumber === Number(number))
        .sort((a, b) => a.id - b.id);
      const { page, headers } = paginate(comments, ctx);
      return { status: 200, body: page.map((c) => commentJson(c, ctx.apiUrl)), headers };
    },
  },
  {
    method: 'POST',
    pattern: '/repos/:owner/:repo/issues/:number/comments',
    auth: 'repo',
    handle: (ctx) => {
      const body = commentBody(ctx);
      if (typeof body !== 'string') return body;
      const now = new Date().toISOString();
      const comment = {
        id: ctx.nextId(),
        owner: ctx.params.owner ?? '',
        repo: ctx.params.repo ?? '',
        issueNumber: Number(ctx.params.number),
        body,
        author: ctx.caller.login,
        authorType: ctx.caller.type,
        viaApp: ctx.caller.app ?? null,
        createdAt: now,
        updatedAt: now,
      };
      ctx.state.comments.push(comment);
      return { status: 201, body: commentJson(comment, ctx.apiUrl) };
    },
  },
  {
    method: 'PATCH',
    pattern: '/repos/:owner/:repo/issues/comments/:id',
    auth: 'repo',
    handle: (ctx) => {
      const comment = ctx.state.comments.find((c) => c.id === Number(ctx.params.id));
      if (!comment) return errorResult(404, 'Not Found');
      if (comment.author !== ctx.caller.login)
        return errorResult(403, 'Must have admin rights to Repository.');
      const body = commentBody(ctx);
      if (typeof body !== 'string') return body;
      comment.body = body;
      comment.updatedAt = new Date().toISOString();
      return { status: 200, body: commentJson(comment, ctx.apiUrl) };
    },
  },
  {
    method: 'POST',
    pattern: '/repos/:owner/:repo/issues/comments/:id/reactions',
    auth: 'repo',
    handle: (ctx) => {
      const commentId = Number(ctx.params.id);
      if (!ctx.state.comments.some((c) => c.id === commentId)) return errorResult(404, 'Not Found');
      const content = text(ctx.body.content);
      if (!content) return validationFailed('Reaction', 'content', 'content is required');
      const author = ctx.caller.login;
      const existing = ctx.state.reactions.find(
        (r) => r.commentId === commentId && r.content === content && r.author === author,
      );
      const reaction = existing ?? { id: ctx.nextId(), commentId, content, author };
      if (!existing) ctx.state.reactions.push(reaction);
      return { status: existing ? 200 : 201, body: reactionJson(reaction) };
    },
  },
];

export const writeRoutes: Route[] = [...checkRunRoutes, ...statusRoutes, ...commentRoutes];
