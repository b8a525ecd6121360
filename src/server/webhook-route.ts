/**
 * POST /webhooks/github (and /webhooks/gitea when Gitea or Forgejo is configured): the
 * headers decide first (event, delivery id, signature, declared size), so an event we do
 * not handle or a body we would refuse costs no read; the body is then hashed as it streams
 * in, under its event's limit and a deadline; only a body whose signature matched is
 * decoded, run through its forge's event rules, deduped by delivery id and enqueued. Nothing
 * here renders or writes to a forge, so the forge gets its answer in milliseconds.
 */
import type { Readable } from 'node:stream';
import { forgeOf, type ForgeName } from '../model/index.js';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { admit, enqueueJobs, madeJob } from './enqueue-jobs.js';
import { HttpError, TooManyRequests } from './http-error.js';
import type { DeliveryOutcome } from './metrics.js';
import { type ServerContext, guarded } from './server-context.js';
import type { EventDecision, SkipInfo } from './types.js';
import {
  type BodySlots,
  LARGE_BODY_BYTES,
  createBodySlots,
  readWebhookBody,
} from './webhook-body.js';
import { type WebhookForge, webhookForges } from './webhook-forges.js';

/** How long a webhook body may take to arrive when the deps do not say. */
export const DEFAULT_BODY_TIMEOUT_MS = 20_000;
/** Bodies over LARGE_BODY_BYTES read at once when the deps do not say. */
const DEFAULT_LARGE_BODIES = 4;

const EVENT_NAME = /^[a-z_]{1,64}$/;
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;

/** What the headers of a delivery we will read say. */
interface Intake {
  event: string;
  deliveryId: string;
  limit: number;
  digest: Buffer | undefined;
}

export function registerWebhookRoute(app: FastifyInstance, ctx: ServerContext): void {
  // One pool of large-body slots for every forge: they bound the server's memory.
  const slots = createBodySlots(ctx.deps.largeBodySlots ?? DEFAULT_LARGE_BODIES);
  for (const forge of webhookForges(ctx)) registerForgeRoute(app, ctx, forge, slots);
}

function registerForgeRoute(
  app: FastifyInstance,
  ctx: ServerContext,
  forge: WebhookForge,
  slots: BodySlots,
): void {
  const { secrets } = forge;
  const verifying = secrets.length > 0;
  if (!verifying) {
    ctx.deps.logger.warn(
      { forge: forge.name },
      'webhook signatures are not verified: insecureNoWebhookSecret is set',
    );
  }
  if (secrets.length > 1) {
    // A reminder that a rotation is under way: the previous secret goes once GitHub has the new.
    ctx.deps.logger.info('webhook deliveries signed with the previous secret are accepted too');
  }
  const timeoutMs = ctx.deps.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  // Encapsulated so only this route reads bodies this way: the signature is over the bytes.
  void app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      ['application/json', 'application/x-www-form-urlencoded'],
      async (request: FastifyRequest, payload: Readable) => {
        const intake = intakeOf(forge, request);
        return readWebhookBody(payload, {
          limit: intake.limit,
          timeoutMs,
          ...(verifying && intake.digest !== undefined
            ? { signature: { secrets, digest: intake.digest } }
            : {}),
        });
      },
    );
    scope.addHook('onRequest', async (request, reply) => {
      try {
        return await door(ctx, forge, slots, request, reply);
      } catch (err) {
        // The body is left unread, so the connection cannot carry another request.
        void reply.header('connection', 'close');
        throw err;
      }
    });
    scope.post(forge.path, (request, reply) => receive(ctx, forge, request, reply));
  });
}

/**
 * Everything decided from the headers alone, before a byte of the body is read. An event
 * we do not handle gets the answer GitHub counts as delivered (it would otherwise show the
 * hook as failing, and nothing would change on a redelivery), with `Connection: close` so
 * its body is never read.
 */
async function door(
  ctx: ServerContext,
  forge: WebhookForge,
  slots: BodySlots,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  const event = firstHeader(request, forge.headers.event);
  if (event !== undefined && EVENT_NAME.test(event) && !forge.limits.has(event)) {
    request.log.info({ event, forge: forge.name }, 'webhook ignored, unhandled event');
    ctx.metrics.delivery(event, 'ignored', forge.name);
    return reply
      .code(202)
      .header('connection', 'close')
      .send({ status: 'ignored', reason: `unhandled event ${event}` });
  }
  const intake = intakeOf(forge, request);
  const declared = Number(header(request, 'content-length'));
  if (declared > intake.limit) {
    throw new HttpError(413, 'body larger than this event is ever sent', 'oversized');
  }
  if (!(declared <= LARGE_BODY_BYTES)) {
    const release = slots.take();
    if (release === undefined) {
      throw new HttpError(503, 'too many large bodies at once, try again', 'busy');
    }
    reply.raw.once('close', release);
  }
  return undefined;
}

/** The headers of a delivery we read, checked; throws the refusal otherwise. */
function intakeOf(forge: WebhookForge, request: FastifyRequest): Intake {
  const { headers } = forge;
  const event = firstHeader(request, headers.event);
  const limit = event === undefined ? undefined : forge.limits.get(event);
  if (event === undefined || limit === undefined) {
    throw new HttpError(400, `missing or invalid ${headers.names.event}`, 'bad-request');
  }
  const delivery = firstHeader(request, headers.delivery);
  if (delivery === undefined || !DELIVERY_ID.test(delivery)) {
    throw new HttpError(400, `missing or invalid ${headers.names.delivery}`, 'bad-request');
  }
  // Delivery ids are deduped in one ledger: another forge's never meet GitHub's.
  const deliveryId = forge.name === 'github' ? delivery : `${forge.name}-${delivery}`;
  const digest = forge.digest(firstHeader(request, headers.signature));
  if (forge.secrets.length > 0 && digest === undefined) {
    throw new HttpError(401, 'signature does not match', 'bad-signature');
  }
  return { event, deliveryId, limit, digest };
}

async function receive(
  ctx: ServerContext,
  forge: WebhookForge,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { event, deliveryId } = intakeOf(forge, request);
  // A POST without a body never reached the body reader, so nothing vouched for it.
  if (!Buffer.isBuffer(request.body)) {
    if (forge.secrets.length > 0)
      throw new HttpError(401, 'signature does not match', 'bad-signature');
    throw new HttpError(400, 'a webhook needs a body', 'bad-request');
  }
  const payload = decodePayload(request.body.toString('utf8'), header(request, 'content-type'));
  const log = request.log.child({ event, deliveryId, forge: forge.name });
  if (event === 'ping') {
    ctx.metrics.delivery(event, 'ping', forge.name);
    return reply.code(200).send({ status: 'pong' });
  }
  const decision = await forge.decide(event, payload, {
    renderDrafts: ctx.deps.renderDrafts,
    renderForks: ctx.deps.renderForks,
    allowlist: ctx.allowlist,
    checkRunName: ctx.deps.checkRunName,
    appId: ctx.deps.appId,
    deliveryId,
    requestedAt: ctx.now().toISOString(),
    commandBots: ctx.commandBots,
    ownLogin: forge.ownLogin?.(),
  });
  const delivery = { ctx, log, event, deliveryId, forge: forge.name };
  const outcome = await act(delivery, decision);
  ctx.metrics.delivery(event, outcome.outcome, forge.name);
  return reply.code(outcome.status).send(outcome.body);
}

interface Delivery {
  ctx: ServerContext;
  log: FastifyBaseLogger;
  event: string;
  deliveryId: string;
  forge: ForgeName;
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
      delivery.ctx.metrics.delivery(delivery.event, 'invalid', delivery.forge);
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
  const { ctx, log, event, deliveryId, forge } = delivery;
  let first: boolean;
  try {
    first = await guarded(() => ctx.deps.deliveries.firstSeen(deliveryId));
  } catch (err) {
    log.warn({ err }, 'webhook delivery failed, the forge may redeliver it');
    ctx.metrics.delivery(event, 'failed', forge);
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
    log.warn({ err }, 'webhook delivery failed, the forge may redeliver it');
    ctx.metrics.delivery(event, 'failed', forge);
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
    // Without an App installation, the owner is the bucket: another forge's owners are its own.
    const owner = react.pull.owner.toLowerCase();
    const forge = forgeOf(react.pull);
    const installation = react.installationId ?? (forge === 'github' ? owner : `${forge}:${owner}`);
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

/** The first of `names` the request carries. */
function firstHeader(request: FastifyRequest, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = header(request, name);
    if (value !== undefined) return value;
  }
  return undefined;
}
