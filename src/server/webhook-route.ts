/**
 * POST /webhooks/github: verify the signature over the raw bytes, decode, apply the event
 * rules, dedupe by delivery id, enqueue. Nothing here renders or calls GitHub, so GitHub
 * gets its answer in milliseconds.
 */
import { Webhooks } from '@octokit/webhooks';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { admit, enqueueJobs, madeJob } from './enqueue-jobs.js';
import { HttpError, TooManyRequests } from './http-error.js';
import { jobForEvent } from './job-for-event.js';
import type { DeliveryOutcome } from './metrics.js';
import { type ServerContext, guarded } from './server-context.js';
import type { EventDecision, SkipInfo } from './types.js';

/** GitHub caps webhook payloads at 25 MB; anything bigger is not from GitHub. */
export const WEBHOOK_BODY_LIMIT = 25 * 1024 * 1024;

const EVENT_NAME = /^[a-z_]{1,64}$/;
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;

type Verify = (body: string, signature: string | undefined) => Promise<boolean>;

export function registerWebhookRoute(app: FastifyInstance, ctx: ServerContext): void {
  const verify = signatureVerifier(ctx);
  // Encapsulated so only this route keeps bodies raw: the signature is over the bytes.
  void app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      ['application/json', 'application/x-www-form-urlencoded'],
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.post('/webhooks/github', { bodyLimit: WEBHOOK_BODY_LIMIT }, (request, reply) =>
      receive(ctx, verify, request, reply),
    );
  });
}

function signatureVerifier(ctx: ServerContext): Verify {
  const secret = ctx.deps.webhookSecret;
  if (secret === undefined || secret === '') {
    ctx.deps.logger.warn('webhook signatures are not verified: insecureNoWebhookSecret is set');
    return () => Promise.resolve(true);
  }
  const webhooks = new Webhooks({ secret });
  return async (body, signature) => {
    if (signature === undefined || body === '') return false;
    return webhooks.verify(body, signature).catch(() => false);
  };
}

async function receive(
  ctx: ServerContext,
  verify: Verify,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  // verify() takes a string. GitHub sends UTF-8; bytes that are not would change in the
  // decoding and fail verification, which is the side to fail on.
  const body = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
  if (!(await verify(body, header(request, 'x-hub-signature-256')))) {
    throw new HttpError(401, 'signature does not match', 'bad-signature');
  }
  const event = header(request, 'x-github-event');
  const deliveryId = header(request, 'x-github-delivery');
  if (event === undefined || !EVENT_NAME.test(event)) {
    throw new HttpError(400, 'missing or invalid X-GitHub-Event', 'bad-request');
  }
  if (deliveryId === undefined || !DELIVERY_ID.test(deliveryId)) {
    throw new HttpError(400, 'missing or invalid X-GitHub-Delivery', 'bad-request');
  }
  const payload = decodePayload(body, header(request, 'content-type'));
  const log = request.log.child({ event, deliveryId });
  if (event === 'ping') {
    ctx.metrics.delivery(event, 'ping');
    return reply.code(200).send({ status: 'pong' });
  }
  const decision = jobForEvent(event, payload, {
    renderDrafts: ctx.deps.renderDrafts,
    renderForks: ctx.deps.renderForks,
    allowlist: ctx.allowlist,
    checkRunName: ctx.deps.checkRunName ?? 'fluxlens',
    appId: ctx.deps.appId,
    deliveryId,
    requestedAt: ctx.now().toISOString(),
  });
  const delivery = { ctx, log, event, deliveryId };
  const outcome = await act(delivery, decision);
  ctx.metrics.delivery(event, outcome.outcome);
  return reply.code(outcome.status).send(outcome.body);
}

interface Delivery {
  ctx: ServerContext;
  log: FastifyBaseLogger;
  event: string;
  deliveryId: string;
}

interface Outcome {
  outcome: DeliveryOutcome;
  status: number;
  body: Record<string, unknown>;
}

async function act(delivery: Delivery, decision: EventDecision): Promise<Outcome> {
  const { log } = delivery;
  switch (decision.action) {
    case 'ignore':
      log.info({ reason: decision.reason }, 'webhook ignored');
      return {
        outcome: 'ignored',
        status: 202,
        body: { status: 'ignored', reason: decision.reason },
      };
    case 'invalid':
      log.warn({ reason: decision.reason }, 'webhook payload lacks fields we need');
      delivery.ctx.metrics.delivery(delivery.event, 'invalid');
      throw new HttpError(400, `unexpected payload: ${decision.reason}`, 'bad-request');
    case 'acknowledge':
      log.info(
        { installationId: decision.installationId, change: decision.change },
        'installation changed',
      );
      return { outcome: 'acknowledged', status: 202, body: { status: 'acknowledged' } };
    default:
      return actOnce(delivery, decision);
  }
}

type Work = Extract<EventDecision, { action: 'enqueue' | 'cancel' | 'skip' }>;

/** Acts once per delivery id; a delivery that failed is forgotten so a redelivery can act. */
async function actOnce(delivery: Delivery, decision: Work): Promise<Outcome> {
  const { ctx, log, event, deliveryId } = delivery;
  let first: boolean;
  try {
    first = await guarded(() => ctx.deps.deliveries.firstSeen(deliveryId));
  } catch (err) {
    log.warn({ err }, 'webhook delivery failed, GitHub may redeliver it');
    ctx.metrics.delivery(event, 'failed');
    // The mark may still land once Redis is back; this removal is queued right behind it.
    void ctx.deps.deliveries.forget(deliveryId).catch(() => undefined);
    throw err;
  }
  if (!first) {
    log.info('webhook redelivered, already handled');
    return { outcome: 'redelivery', status: 200, body: { status: 'duplicate' } };
  }
  try {
    return await perform(delivery, decision);
  } catch (err) {
    log.warn({ err }, 'webhook delivery failed, GitHub may redeliver it');
    ctx.metrics.delivery(event, 'failed');
    await guarded(() => ctx.deps.deliveries.forget(deliveryId)).catch((forgetErr: unknown) => {
      // Likely the same outage: the redelivery is then taken for a duplicate, and the
      // periodic resync is what picks the PR up again.
      log.warn({ err: forgetErr }, 'could not forget the failed delivery');
    });
    throw err;
  }
}

async function perform(delivery: Delivery, decision: Work): Promise<Outcome> {
  const { ctx, log, deliveryId } = delivery;
  const { deps, background } = ctx;
  switch (decision.action) {
    case 'enqueue':
      return enqueueDelivery(delivery, decision);
    case 'cancel':
      await guarded(() => deps.queue.cancel(decision.pull));
      log.info({ ...decision.pull }, 'review cancelled, pull request closed');
      return { outcome: 'cancelled', status: 202, body: { status: 'cancelled' } };
    case 'skip': {
      const { pull, headSha, reason, installationId } = decision;
      const info: SkipInfo = { pull, headSha, reason, deliveryId };
      if (installationId !== undefined) info.installationId = installationId;
      log.info({ ...decision.pull, reason: decision.reason }, 'pull request skipped');
      if (deps.skipCheck !== undefined) {
        const call = deps.skipCheck;
        background.run('skip-check', log, () => call(info));
      }
      return {
        outcome: 'skipped',
        status: 202,
        body: { status: 'skipped', reason: decision.reason },
      };
    }
  }
}

/**
 * A command counts against its installation's limit before anything else; only a command
 * that made a job is acknowledged, so a flood of them costs one reaction per job.
 */
async function enqueueDelivery(
  delivery: Delivery,
  decision: Extract<Work, { action: 'enqueue' }>,
): Promise<Outcome> {
  const { ctx, log } = delivery;
  const react = decision.react;
  if (react !== undefined) {
    const installation = react.installationId ?? react.pull.owner.toLowerCase();
    try {
      await admit(ctx, [
        [`commands:${installation}`, ctx.deps.rateLimits?.commandsPerInstallation],
      ]);
    } catch (err) {
      if (!(err instanceof TooManyRequests)) throw err;
      log.info({ ...react.pull }, 'command over its installation limit, ignored');
      const body = { status: 'ignored', reason: 'rate limited' };
      return { outcome: 'rate-limited', status: 202, body };
    }
  }
  const jobs = await enqueueJobs(ctx, log, decision.jobs);
  const call = ctx.deps.react;
  if (react !== undefined && call !== undefined && jobs.some(madeJob)) {
    ctx.background.run('react', log, () => call(react));
  }
  if (jobs.every((job) => job.status === 'coalesced')) {
    return { outcome: 'coalesced', status: 202, body: { status: 'coalesced', jobs } };
  }
  return { outcome: 'enqueued', status: 202, body: { status: 'enqueued', jobs } };
}

function decodePayload(body: string, contentType: string | undefined): unknown {
  let json: string | null = body;
  if (contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded') === true) {
    json = new URLSearchParams(body).get('payload');
  }
  if (json === null) throw new HttpError(400, 'form body without a payload field', 'bad-request');
  try {
    return JSON.parse(json);
  } catch {
    throw new HttpError(400, 'payload is not valid JSON', 'bad-request');
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
