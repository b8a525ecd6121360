/**
 * The bearer-token API: ask for a re-render, follow its job, read a PR's stored result.
 * Registered only when an API token is configured, so without one the routes are 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ReviewJob } from '../queue/index.js';
import { admit, enqueueJobs, tokenBucket } from './enqueue-jobs.js';
import { HttpError } from './http-error.js';
import { RenderRequest, inAllowlist, pullFromParams } from './pull-params.js';
import { bearerToken, sameSecret } from './same-secret.js';
import { type ServerContext, guarded } from './server-context.js';

/** A render request is three fields; nothing legitimate comes near this. */
const API_BODY_LIMIT = 16 * 1024;

const JobId = z.object({ id: z.string().min(1).max(200) });

export function registerApiRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const token = ctx.deps.apiToken;
  if (token === undefined || token === '') return;
  void app.register(async (scope) => {
    // onRequest runs before the body is read: an unauthenticated caller costs nothing.
    scope.addHook('onRequest', async (request) => requireToken(request, token));

    scope.post('/api/v1/renders', { bodyLimit: API_BODY_LIMIT }, async (request, reply) => {
      const parsed = RenderRequest.safeParse(request.body);
      if (!parsed.success) throw new HttpError(400, 'expected { owner, repo, pull_number }');
      const pull = {
        owner: parsed.data.owner,
        repo: parsed.data.repo,
        pullNumber: parsed.data.pull_number,
      };
      if (!inAllowlist(pull, ctx.allowlist))
        throw new HttpError(403, 'repository not in allowlist');
      const limits = ctx.deps.rateLimits;
      await admit(ctx, [
        [tokenBucket(token), limits?.apiRendersPerToken],
        [`owner:${pull.owner.toLowerCase()}`, limits?.apiRendersPerOwner],
      ]);
      // The call names only the PR: the worker reviews its head and base as they are then.
      const job: ReviewJob = {
        pull,
        reason: 'api',
        explicit: true,
        requestedAt: ctx.now().toISOString(),
      };
      const [outcome] = await enqueueJobs(ctx, request.log, [job]);
      // A PR with a waiting job answers with that job: it reviews the newest head anyway.
      return reply.code(202).send({ ...outcome, coalesced: outcome?.status === 'coalesced' });
    });

    scope.get('/api/v1/renders/:id', async (request) => {
      const parsed = JobId.safeParse(request.params);
      if (!parsed.success) throw new HttpError(400, 'invalid job id');
      const state = await guarded(() => ctx.deps.queue.state(parsed.data.id));
      if (state === undefined) throw new HttpError(404, 'no such job');
      return state;
    });

    const result = async (request: FastifyRequest, reply: FastifyReply) => {
      const pull = pullFromParams(request.params);
      const stored = await guarded(() => ctx.deps.results.get(pull));
      if (stored === undefined) throw new HttpError(404, 'no result for this pull request');
      return reply
        .type('application/json; charset=utf-8')
        .header('x-fluxlens-head-sha', stored.headSha)
        .send(stored.resultJson);
    };
    scope.get('/api/v1/repos/:owner/:repo/pulls/:number', result);
    // Another forge's pull requests (`gitea`): the same result, named by forge first.
    scope.get('/api/v1/forges/:forge/repos/:owner/:repo/pulls/:number', result);
  });
}

export function requireToken(request: FastifyRequest, token: string): void {
  const given = bearerToken(request.headers.authorization);
  if (given === undefined || !sameSecret(given, token)) {
    throw new HttpError(401, 'missing or wrong bearer token', 'bad-token');
  }
}
