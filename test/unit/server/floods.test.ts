/**
 * Floods at the door, on a real inline queue without a worker: `/fluxlens render` and
 * re-render calls for a PR that already has a waiting job are coalesced into it without
 * a reaction, and calls past a rate limit are refused before they reach the queue.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createInlineQueue, type InlineQueue } from '../../../src/queue/index.js';
import type { RateLimits } from '../../../src/server/index.js';
import { example, set } from './support/github-examples.js';
import {
  API_TOKEN,
  type TestServer,
  deliver,
  metricValue,
  testServer,
} from './support/test-server.js';

const auth = { authorization: `Bearer ${API_TOKEN}` };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function start(rateLimits: RateLimits = {}): TestServer & { real: InlineQueue } {
  const real = createInlineQueue();
  const server = testServer({ apiToken: API_TOKEN, queue: real, deliveries: real, rateLimits });
  cleanups.push(async () => {
    await server.app.close();
    await real.close();
  });
  return { ...server, real };
}

function command(pullNumber = 1) {
  const payload = example('issue_comment', 'created');
  set(payload, 'issue.number', pullNumber);
  set(payload, 'issue.pull_request', { url: 'https://api.github.com/x' });
  set(payload, 'comment.body', '/fluxlens render');
  set(payload, 'comment.author_association', 'OWNER');
  set(payload, 'installation', { id: 4242 });
  return payload;
}

function render(app: TestServer['app'], owner = 'flux-org', pull = 7) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/renders',
    headers: auth,
    payload: { owner, repo: 'fleet', pull_number: pull },
  });
}

describe('a flood of /fluxlens render comments on one pull request', () => {
  it('makes one job and one reaction, and answers the rest as coalesced into that job', async () => {
    const { app, real, reactions } = start();
    const answers = [];
    for (let i = 0; i < 50; i += 1) answers.push(await deliver(app, 'issue_comment', command()));
    const bodies = answers.map((res) => res.json() as { status: string; jobs: unknown[] });
    expect(bodies[0]?.status).toBe('enqueued');
    const jobId = (bodies[0]?.jobs[0] as { jobId: string }).jobId;
    expect(bodies.slice(1)).toEqual(
      Array.from({ length: 49 }, () => ({
        status: 'coalesced',
        jobs: [{ status: 'coalesced', jobId }],
      })),
    );
    expect(reactions).toHaveLength(1);
    expect(await real.depth()).toMatchObject({ waiting: 1, active: 0 });
    const coalesced =
      'fluxlens_webhook_deliveries_total{event="issue_comment",outcome="coalesced"}';
    expect(await metricValue(app, coalesced)).toBe(49);
    expect(await metricValue(app, 'fluxlens_review_requests_total{outcome="coalesced"}')).toBe(49);
  });

  it("ignores commands past the installation's limit, without a job or a reaction", async () => {
    const { app, real, reactions } = start({ commandsPerInstallation: 3 });
    const answers = [];
    for (let pull = 1; pull <= 5; pull += 1) {
      answers.push((await deliver(app, 'issue_comment', command(pull))).json());
    }
    expect(answers.map((body) => (body as { status: string }).status)).toEqual([
      'enqueued',
      'enqueued',
      'enqueued',
      'ignored',
      'ignored',
    ]);
    expect(answers[4]).toEqual({ status: 'ignored', reason: 'rate limited' });
    expect(reactions.map((r) => r.pull.pullNumber)).toEqual([1, 2, 3]);
    expect(await real.depth()).toMatchObject({ waiting: 3 });
    const limited =
      'fluxlens_webhook_deliveries_total{event="issue_comment",outcome="rate-limited"}';
    expect(await metricValue(app, limited)).toBe(2);
  });
});

describe('a flood of re-render API calls', () => {
  it('answers a call for a PR with a waiting job with that job, coalesced', async () => {
    const { app, real } = start();
    const first = (await render(app)).json() as { jobId: string; coalesced: boolean };
    expect(first).toMatchObject({ status: 'queued', coalesced: false });
    for (let i = 0; i < 20; i += 1) {
      const res = await render(app);
      expect(res.statusCode).toBe(202);
      expect(res.json()).toEqual({ status: 'coalesced', jobId: first.jobId, coalesced: true });
    }
    expect(await real.depth()).toMatchObject({ waiting: 1 });
  });

  it('answers 429 with Retry-After past the limit of the token, for every repository', async () => {
    const { app, real } = start({ apiRendersPerToken: 3 });
    const statuses = [];
    for (let pull = 1; pull <= 3; pull += 1)
      statuses.push((await render(app, 'flux-org', pull)).statusCode);
    const refused = await render(app, 'someone-else', 9);
    expect(statuses).toEqual([202, 202, 202]);
    expect(refused.statusCode).toBe(429);
    const wait = Number(refused.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(refused.json()).toEqual({ error: 'too many render requests, try again later' });
    expect(await metricValue(app, 'fluxlens_http_rejections_total{reason="rate-limited"}')).toBe(1);
    expect(await real.depth()).toMatchObject({ waiting: 3 });
  });

  it("answers 429 past the limit of the repository's owner and still serves other owners", async () => {
    const { app, real } = start({ apiRendersPerOwner: 2 });
    expect((await render(app, 'Flux-Org', 1)).statusCode).toBe(202);
    expect((await render(app, 'flux-org', 2)).statusCode).toBe(202);
    const refused = await render(app, 'FLUX-ORG', 3);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await render(app, 'other-org', 1)).statusCode).toBe(202);
    expect(await real.depth()).toMatchObject({ waiting: 3 });
  });
});
