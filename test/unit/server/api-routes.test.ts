import { afterEach, describe, expect, it } from 'vitest';
import { createInlineQueue } from '../../../src/queue/index.js';
import { API_TOKEN, type TestServer, metricValue, testServer } from './support/test-server.js';

const PULL = { owner: 'flux-org', repo: 'fleet', pullNumber: 7 };
const auth = { authorization: `Bearer ${API_TOKEN}` };

let server: TestServer;
afterEach(async () => server.app.close());

function start(overrides: Parameters<typeof testServer>[0] = { apiToken: API_TOKEN }): TestServer {
  server = testServer(overrides);
  return server;
}

function requestRender(
  headers: Record<string, string>,
  body: unknown = { owner: 'flux-org', repo: 'fleet', pull_number: 7 },
) {
  return server.app.inject({
    method: 'POST',
    url: '/api/v1/renders',
    headers,
    payload: body as object,
  });
}

describe('re-render API', () => {
  it('queues an explicit render resolved at run time and reports its state', async () => {
    const { app, queue } = start();
    const res = await requestRender(auth);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'queued', jobId: 'job-1', coalesced: false });
    expect(queue.enqueued).toEqual([
      { pull: PULL, reason: 'api', explicit: true, requestedAt: '2024-05-01T12:00:00.000Z' },
    ]);

    const state = await app.inject({ method: 'GET', url: '/api/v1/renders/job-1', headers: auth });
    expect(state.statusCode).toBe(200);
    expect(state.json()).toMatchObject({ jobId: 'job-1', pull: PULL, status: 'waiting' });
  });

  it('queues a render the real queue accepts without a head and reports it waiting', async () => {
    const queue = createInlineQueue();
    const { app } = start({ apiToken: API_TOKEN, queue, deliveries: queue });
    try {
      const res = await requestRender(auth);
      expect(res.statusCode).toBe(202);
      const { status, jobId } = res.json() as { status: string; jobId: string };
      expect(status).toBe('queued');
      const state = await app.inject({
        method: 'GET',
        url: `/api/v1/renders/${jobId}`,
        headers: auth,
      });
      expect(state.json()).toEqual({ jobId, pull: PULL, status: 'waiting', attempts: 0 });
    } finally {
      await queue.close();
    }
  });

  it('answers 404 for a job it does not know', async () => {
    const { app } = start();
    const res = await app.inject({ method: 'GET', url: '/api/v1/renders/job-404', headers: auth });
    expect(res.statusCode).toBe(404);
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token' }],
    ['the token without the Bearer scheme', { authorization: API_TOKEN }],
    ['a prefix of the token', { authorization: `Bearer ${API_TOKEN.slice(0, 8)}` }],
  ])('refuses %s with 401 and queues nothing', async (_name, headers: Record<string, string>) => {
    const { app, queue } = start();
    const res = await requestRender(headers);
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(queue.enqueued).toEqual([]);
    expect(await metricValue(app, 'fluxlens_http_rejections_total{reason="bad-token"}')).toBe(1);
  });

  it('does not exist when no API token is configured', async () => {
    const { app } = start({});
    expect((await requestRender(auth)).statusCode).toBe(404);
    const state = await app.inject({ method: 'GET', url: '/api/v1/renders/job-1', headers: auth });
    expect(state.statusCode).toBe(404);
  });

  it.each([
    ['a missing pull number', { owner: 'flux-org', repo: 'fleet' }],
    ['a pull number as text', { owner: 'flux-org', repo: 'fleet', pull_number: '7' }],
    ['a repository name with a slash', { owner: 'flux-org', repo: '../etc', pull_number: 7 }],
  ])('answers 400 to %s', async (_name, body) => {
    const { queue } = start();
    const res = await requestRender(auth, body);
    expect(res.statusCode).toBe(400);
    expect(queue.enqueued).toEqual([]);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const { app } = start();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/renders',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"owner":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'bad request' });
  });

  it('refuses a repository outside the allowlist', async () => {
    const { queue } = start({ apiToken: API_TOKEN, repositoryAllowlist: ['flux-org/other'] });
    expect((await requestRender(auth)).statusCode).toBe(403);
    expect(queue.enqueued).toEqual([]);
  });

  it('answers 503 when the queue is down', async () => {
    const { queue } = start();
    queue.down = true;
    const res = await requestRender(auth);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
  });
});

describe('stored results API', () => {
  it('returns the stored analysis of a pull request as JSON', async () => {
    const { app, results } = start();
    await results.put(PULL, 'a'.repeat(40), '{"schemaVersion":1,"verdict":"safe"}');
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/repos/flux-org/fleet/pulls/7',
      headers: auth,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-fluxlens-head-sha']).toBe('a'.repeat(40));
    expect(res.json()).toEqual({ schemaVersion: 1, verdict: 'safe' });
  });

  it('answers 404 for a pull request without a result', async () => {
    const { app } = start();
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/repos/flux-org/fleet/pulls/8',
      headers: auth,
    });
    expect(res.statusCode).toBe(404);
  });

  it('needs the token', async () => {
    const { app, results } = start();
    await results.put(PULL, 'a'.repeat(40), '{}');
    const res = await app.inject({ method: 'GET', url: '/api/v1/repos/flux-org/fleet/pulls/7' });
    expect(res.statusCode).toBe(401);
  });

  it('never writes the API token to the log', async () => {
    const { logs } = start();
    await requestRender(auth);
    await requestRender({ authorization: 'Bearer guessed-token-value' });
    expect(logs.join('')).not.toContain(API_TOKEN);
    expect(logs.join('')).not.toContain('guessed-token-value');
  });
});
