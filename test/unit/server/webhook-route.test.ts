import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { type DeliveryLedger, type JobQueue, createInlineQueue } from '../../../src/queue/index.js';
import { type ServerDeps, buildServer } from '../../../src/server/index.js';
import { CHECK_RUN_NAME } from '../../../src/review/index.js';
import { createLogger } from '../../../src/logger.js';
import { FakeLedger, FakeQueue, FakeResults } from './support/fake-queue.js';
import { example, set, signBody } from './support/github-examples.js';
import {
  type TestServer,
  WEBHOOK_SECRET,
  deliver,
  metricValue,
  testServer,
} from './support/test-server.js';

const HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

let server: TestServer;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await server.app.close();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real in-process queue, which is a delivery ledger too; closed after the test. */
function realQueue() {
  const queue = createInlineQueue();
  cleanups.push(() => queue.close());
  return queue;
}

function start(overrides: Parameters<typeof testServer>[0] = {}): TestServer {
  server = testServer(overrides);
  return server;
}

describe('POST /webhooks/github', () => {
  it('accepts an opened pull request and enqueues one review of its head', async () => {
    const { app, queue } = start();
    const res = await deliver(app, 'pull_request', example('pull_request', 'opened'), {
      deliveryId: 'a1b2c3',
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({
      status: 'enqueued',
      jobs: [{ status: 'queued', jobId: 'job-1' }],
    });
    expect(queue.enqueued).toEqual([
      {
        pull: { owner: 'Codertocat', repo: 'Hello-World', pullNumber: 2 },
        headSha: HEAD,
        baseRef: 'master',
        reason: 'opened',
        explicit: false,
        deliveryId: 'a1b2c3',
        requestedAt: '2024-05-01T12:00:00.000Z',
      },
    ]);
  });

  it('enqueues nothing for a redelivery of the same delivery id', async () => {
    const { app, queue } = start();
    const payload = example('pull_request', 'synchronize');
    await deliver(app, 'pull_request', payload, { deliveryId: 'same-id' });
    const again = await deliver(app, 'pull_request', payload, { deliveryId: 'same-id' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ status: 'duplicate' });
    expect(queue.enqueued).toHaveLength(1);
  });

  it.each([
    ['a signature made with another secret', { secret: 'not-the-secret' }],
    ['no signature', { signature: null }],
    ['a signature that is not hex', { signature: 'sha256=zz' }],
    ['an old sha1 signature', { signature: 'sha1=0123456789abcdef0123456789abcdef01234567' }],
  ])('refuses a delivery with %s and enqueues nothing', async (_name, options) => {
    const { app, queue } = start();
    const res = await deliver(app, 'pull_request', example('pull_request', 'opened'), options);
    expect(res.statusCode).toBe(401);
    expect(queue.enqueued).toEqual([]);
    expect(await metricValue(app, 'fluxlens_http_rejections_total{reason="bad-signature"}')).toBe(
      1,
    );
  });

  it('refuses a body changed after signing', async () => {
    const { app, queue } = start();
    const payload = example('pull_request', 'opened');
    const signature = signBody(WEBHOOK_SECRET, JSON.stringify(payload));
    set(payload, 'pull_request.head.sha', 'f'.repeat(40));
    const res = await deliver(app, 'pull_request', payload, { signature });
    expect(res.statusCode).toBe(401);
    expect(queue.enqueued).toEqual([]);
  });

  it('answers 400 to a signed body that is not JSON', async () => {
    const { app, queue } = start();
    const res = await deliver(app, 'pull_request', {}, { rawBody: '{"action": "opened",' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'payload is not valid JSON' });
    expect(queue.enqueued).toEqual([]);
  });

  it.each([
    ['X-GitHub-Event', { event: null, headers: {} }],
    ['X-GitHub-Delivery', { event: 'pull_request', headers: { 'x-github-delivery': '' } }],
  ])('answers 400 when %s is missing', async (_name, { event, headers }) => {
    const { app, queue } = start();
    const body = JSON.stringify(example('pull_request', 'opened'));
    const res = await app.inject({
      method: 'POST',
      url: '/webhooks/github',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': signBody(WEBHOOK_SECRET, body),
        'x-github-delivery': 'd-1',
        ...(event === null ? {} : { 'x-github-event': event }),
        ...headers,
      },
      payload: body,
    });
    expect(res.statusCode).toBe(400);
    expect(queue.enqueued).toEqual([]);
  });

  it('refuses a body over 25 MB with 413', async () => {
    const { app, queue } = start();
    const payload = example('pull_request', 'opened');
    set(payload, 'pull_request.body', 'x'.repeat(25 * 1024 * 1024));
    const res = await deliver(app, 'pull_request', payload);
    expect(res.statusCode).toBe(413);
    expect(queue.enqueued).toEqual([]);
    expect(await metricValue(app, 'fluxlens_http_rejections_total{reason="oversized"}')).toBe(1);
  });

  it('accepts the form-encoded delivery GitHub sends when so configured', async () => {
    const { app, queue } = start();
    const form = new URLSearchParams({
      payload: JSON.stringify(example('pull_request', 'reopened')),
    }).toString();
    const res = await deliver(
      app,
      'pull_request',
      {},
      {
        rawBody: form,
        contentType: 'application/x-www-form-urlencoded',
      },
    );
    expect(res.statusCode).toBe(202);
    expect(queue.enqueued).toMatchObject([{ reason: 'reopened', headSha: HEAD }]);
  });

  it('answers a ping with 200', async () => {
    const { app } = start();
    const res = await deliver(app, 'ping', example('ping'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'pong' });
  });

  it('cancels the review when the pull request closes', async () => {
    const { app, queue } = start();
    const res = await deliver(app, 'pull_request', example('pull_request', 'closed'));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'cancelled' });
    expect(queue.cancelled).toEqual([{ owner: 'Codertocat', repo: 'Hello-World', pullNumber: 2 }]);
  });

  it('skips a draft and hands the reason to the skip check', async () => {
    const { app, queue, skipped } = start();
    const payload = set(example('pull_request', 'synchronize'), 'pull_request.draft', true);
    const res = await deliver(app, 'pull_request', payload, { deliveryId: 'draft-1' });
    await app.close();
    expect(res.json()).toEqual({ status: 'skipped', reason: 'draft' });
    expect(queue.enqueued).toEqual([]);
    expect(skipped).toEqual([
      {
        pull: { owner: 'Codertocat', repo: 'Hello-World', pullNumber: 2 },
        headSha: HEAD,
        reason: 'draft',
        installationId: 1,
        deliveryId: 'draft-1',
      },
    ]);
  });

  it('skips a pull request from a fork unless forks are rendered', async () => {
    const fork = () => set(example('pull_request', 'opened'), 'pull_request.head.repo.id', 4242);
    const { app, queue } = start();
    expect((await deliver(app, 'pull_request', fork())).json()).toEqual({
      status: 'skipped',
      reason: 'fork',
    });
    expect(queue.enqueued).toEqual([]);
    await app.close();

    const forks = start({ renderForks: true });
    expect((await deliver(forks.app, 'pull_request', fork())).statusCode).toBe(202);
    expect(forks.queue.enqueued).toMatchObject([{ reason: 'opened' }]);
  });

  it('ignores an edit that keeps the base branch and re-reviews one that changes it', async () => {
    const { app, queue } = start();
    const edited = set(example('pull_request', 'opened'), 'action', 'edited');
    set(edited, 'changes', { title: { from: 'Update the README' } });
    expect((await deliver(app, 'pull_request', edited)).json()).toMatchObject({
      status: 'ignored',
    });
    expect(queue.enqueued).toEqual([]);

    set(edited, 'changes', { base: { ref: { from: 'develop' }, sha: { from: HEAD } } });
    expect((await deliver(app, 'pull_request', edited)).statusCode).toBe(202);
    expect(queue.enqueued).toMatchObject([{ reason: 'base-changed', explicit: true }]);
  });

  it.each(['NONE', 'CONTRIBUTOR', 'FIRST_TIME_CONTRIBUTOR'])(
    'ignores /fluxlens render from an author associated as %s',
    async (association) => {
      const { app, queue, reactions } = start();
      const res = await deliver(app, 'issue_comment', commandComment(association));
      await app.close();
      expect(res.json()).toMatchObject({ status: 'ignored' });
      expect(queue.enqueued).toEqual([]);
      expect(reactions).toEqual([]);
    },
  );

  it('enqueues an explicit render for /fluxlens render from a member and reacts to it', async () => {
    const { app, queue, reactions } = start();
    const res = await deliver(app, 'issue_comment', commandComment('MEMBER'));
    await app.close();
    expect(res.statusCode).toBe(202);
    expect(queue.enqueued).toMatchObject([
      {
        pull: { owner: 'Codertocat', repo: 'Hello-World', pullNumber: 1 },
        reason: 'comment-command',
        explicit: true,
      },
    ]);
    expect(reactions).toEqual([
      {
        pull: { owner: 'Codertocat', repo: 'Hello-World', pullNumber: 1 },
        commentId: 492700400,
      },
    ]);
  });

  it('hands /fluxlens render to the queue as a job that names only the pull request', async () => {
    const queue = realQueue();
    const { app } = start({ queue, deliveries: queue });
    const res = await deliver(app, 'issue_comment', commandComment('OWNER'));
    expect(res.statusCode).toBe(202);
    const [enqueued] = (res.json() as { jobs: Array<{ status: string; jobId: string }> }).jobs;
    expect(enqueued?.status).toBe('queued');
    expect(await queue.state(enqueued?.jobId ?? '')).toEqual({
      jobId: enqueued?.jobId,
      pull: { owner: 'Codertocat', repo: 'Hello-World', pullNumber: 1 },
      status: 'waiting',
      attempts: 0,
    });
  });

  it('enqueues an explicit render when our check run is re-requested', async () => {
    const { app, queue } = start();
    const suite = example('check_suite', 'rerequested');
    const payload = example('check_run', 'rerequested');
    set(payload, 'check_run.name', 'fluxlens');
    set(payload, 'repository', suite.repository);
    set(
      payload,
      'check_run.pull_requests',
      (suite.check_suite as { pull_requests: unknown }).pull_requests,
    );
    expect((await deliver(app, 'check_run', payload)).statusCode).toBe(202);
    expect(queue.enqueued).toMatchObject([
      { headSha: HEAD, baseRef: 'master', reason: 'check-rerequested', explicit: true },
    ]);
  });

  it('ignores repositories outside the allowlist', async () => {
    const { app, queue } = start({ repositoryAllowlist: ['Codertocat/Other'] });
    const res = await deliver(app, 'pull_request', example('pull_request', 'opened'));
    expect(res.json()).toEqual({ status: 'ignored', reason: 'repository not in allowlist' });
    expect(queue.enqueued).toEqual([]);
  });

  it('acknowledges installation events', async () => {
    const { app } = start();
    const res = await deliver(app, 'installation', example('installation', 'created'));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'acknowledged' });
  });

  it('counts an unknown event as ignored', async () => {
    const { app } = start();
    const res = await deliver(app, 'sponsorship', { action: 'created' });
    expect(res.json()).toMatchObject({ status: 'ignored' });
    const sample = 'fluxlens_webhook_deliveries_total{event="other",outcome="ignored"}';
    expect(await metricValue(app, sample)).toBe(1);
  });

  it('answers 503 when the queue is down, so GitHub can redeliver, and then accepts it', async () => {
    const { app, queue } = start();
    queue.down = true;
    const payload = example('pull_request', 'opened');
    const failed = await deliver(app, 'pull_request', payload, { deliveryId: 'retry-me' });
    expect(failed.statusCode).toBe(503);
    expect(failed.json()).toEqual({ error: 'queue unavailable, try again' });
    expect(failed.body).not.toContain('ECONNREFUSED');

    queue.down = false;
    const redelivered = await deliver(app, 'pull_request', payload, { deliveryId: 'retry-me' });
    expect(redelivered.statusCode).toBe(202);
    expect(queue.enqueued).toHaveLength(1);
  });

  it('accepts the redelivery of a delivery whose enqueue failed', async () => {
    const ledger = realQueue();
    const { app, queue } = start({ deliveries: ledger });
    queue.enqueueFailures = 1;
    const payload = example('pull_request', 'synchronize');
    const failed = await deliver(app, 'pull_request', payload, { deliveryId: 'flaky-1' });
    expect(failed.statusCode).toBe(503);
    expect(queue.enqueued).toEqual([]);

    const redelivered = await deliver(app, 'pull_request', payload, { deliveryId: 'flaky-1' });
    expect(redelivered.statusCode).toBe(202);
    expect(queue.enqueued).toMatchObject([{ reason: 'synchronize', deliveryId: 'flaky-1' }]);
    const again = await deliver(app, 'pull_request', payload, { deliveryId: 'flaky-1' });
    expect(again.json()).toEqual({ status: 'duplicate' });
    const sample = 'fluxlens_webhook_deliveries_total{event="pull_request",outcome="failed"}';
    expect(await metricValue(app, sample)).toBe(1);
  });

  it('answers 503 and says so in the log when the failed delivery cannot be forgotten either', async () => {
    const ledger = new FakeLedger();
    ledger.forget = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    const { app, queue, logs } = start({ deliveries: ledger });
    queue.enqueueFailures = 1;
    const payload = example('pull_request', 'synchronize');
    const failed = await deliver(app, 'pull_request', payload, { deliveryId: 'lost-1' });
    expect(failed.statusCode).toBe(503);
    expect(logs.join('')).toContain('could not forget the failed delivery');
    const redelivered = await deliver(app, 'pull_request', payload, { deliveryId: 'lost-1' });
    expect(redelivered.json()).toEqual({ status: 'duplicate' });
  });

  it('counts deliveries by event and outcome', async () => {
    const { app } = start();
    await deliver(app, 'pull_request', example('pull_request', 'opened'));
    await deliver(app, 'pull_request', example('pull_request', 'closed'));
    await deliver(app, 'pull_request', example('pull_request', 'opened'), { signature: null });
    const count = (outcome: string) =>
      metricValue(
        app,
        `fluxlens_webhook_deliveries_total{event="pull_request",outcome="${outcome}"}`,
      );
    expect(await count('enqueued')).toBe(1);
    expect(await count('cancelled')).toBe(1);
  });

  it('never writes the webhook secret or a signature to the log', async () => {
    const { app, logs } = start();
    await deliver(app, 'pull_request', example('pull_request', 'opened'));
    await deliver(app, 'pull_request', example('pull_request', 'opened'), { secret: 'wrong' });
    expect(logs.length).toBeGreaterThan(0);
    const all = logs.join('');
    expect(all).not.toContain(WEBHOOK_SECRET);
    expect(all).not.toContain('sha256=');
  });
});

describe('a webhook secret rotation (previousWebhookSecret)', () => {
  const PREVIOUS = 'webhook-secret-being-replaced-20c4';

  it.each([
    ['the current secret', WEBHOOK_SECRET],
    ['the previous secret', PREVIOUS],
  ])('accepts a delivery signed with %s and enqueues its review', async (_case, secret) => {
    const { app, queue } = start({ previousWebhookSecret: PREVIOUS });
    const res = await deliver(app, 'pull_request', example('pull_request', 'opened'), { secret });
    expect(res.statusCode).toBe(202);
    expect(queue.enqueued).toHaveLength(1);
    expect(queue.enqueued[0]?.headSha).toBe(HEAD);
  });

  it('refuses a delivery signed with a third secret', async () => {
    const { app, queue } = start({ previousWebhookSecret: PREVIOUS });
    const res = await deliver(app, 'pull_request', example('pull_request', 'opened'), {
      secret: 'some-other-webhook-secret-9e51',
    });
    expect(res.statusCode).toBe(401);
    expect(queue.enqueued).toEqual([]);
    expect(await metricValue(app, 'fluxlens_http_rejections_total{reason="bad-signature"}')).toBe(
      1,
    );
  });

  it('refuses the previous secret once it is unset: only the current one counts', async () => {
    const { app, queue } = start();
    const payload = example('pull_request', 'opened');
    const old = await deliver(app, 'pull_request', payload, { secret: PREVIOUS });
    expect(old.statusCode).toBe(401);
    const current = await deliver(app, 'pull_request', payload, { secret: WEBHOOK_SECRET });
    expect(current.statusCode).toBe(202);
    expect(queue.enqueued).toHaveLength(1);
  });

  it('refuses a body changed after it was signed with the previous secret', async () => {
    const { app, queue } = start({ previousWebhookSecret: PREVIOUS });
    const payload = example('pull_request', 'opened');
    const signature = signBody(PREVIOUS, JSON.stringify(payload));
    set(payload, 'pull_request.head.sha', 'f'.repeat(40));
    const res = await deliver(app, 'pull_request', payload, { signature });
    expect(res.statusCode).toBe(401);
    expect(queue.enqueued).toEqual([]);
  });

  it('never writes either secret to the log, and says the previous one is accepted', async () => {
    const { app, logs } = start({ previousWebhookSecret: PREVIOUS });
    const payload = example('pull_request', 'opened');
    await deliver(app, 'pull_request', payload, { secret: PREVIOUS });
    await deliver(app, 'pull_request', payload, { secret: WEBHOOK_SECRET });
    await deliver(app, 'pull_request', payload, { secret: 'wrong' });
    const all = logs.join('');
    expect(all).toContain('webhook deliveries signed with the previous secret are accepted too');
    expect(all).not.toContain(WEBHOOK_SECRET);
    expect(all).not.toContain(PREVIOUS);
    expect(all).not.toContain('sha256=');
  });
});

describe('buildServer', () => {
  const deps = () => ({
    logger: createLogger({ level: 'silent' }),
    queue: new FakeQueue(),
    deliveries: new FakeLedger(),
    results: new FakeResults(),
    renderDrafts: false,
    renderForks: false,
    checkRunName: CHECK_RUN_NAME,
  });

  it('takes the queue contract’s JobQueue and DeliveryLedger as they are', async () => {
    expectTypeOf<ServerDeps['queue']>().toEqualTypeOf<JobQueue>();
    expectTypeOf<ServerDeps['deliveries']>().toEqualTypeOf<DeliveryLedger>();
    const queue = createInlineQueue();
    const app = buildServer({ ...deps(), queue, deliveries: queue, webhookSecret: 's' });
    try {
      const payload = JSON.stringify(example('pull_request', 'opened'));
      const res = await deliver(app, 'pull_request', {}, { rawBody: payload, secret: 's' });
      expect(res.statusCode).toBe(202);
      expect(await queue.depth()).toMatchObject({ waiting: 1 });
    } finally {
      await app.close();
      await queue.close();
    }
  });

  it('refuses to build without a webhook secret', () => {
    expect(() => buildServer(deps())).toThrow(/webhook secret is required/);
  });

  it('accepts unsigned deliveries only when told it is insecure', async () => {
    const app = buildServer({ ...deps(), insecureNoWebhookSecret: true });
    try {
      const res = await deliver(app, 'pull_request', example('pull_request', 'opened'), {
        signature: null,
      });
      expect(res.statusCode).toBe(202);
    } finally {
      await app.close();
    }
  });
});

function commandComment(association: string) {
  const payload = example('issue_comment', 'created');
  set(payload, 'issue.pull_request', {
    url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1',
  });
  set(payload, 'comment.body', 'Please look again.\r\n/fluxlens render\r\n');
  set(payload, 'comment.author_association', association);
  return payload;
}
