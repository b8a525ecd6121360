import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../../support/paths.js';
import { example } from './support/github-examples.js';
import { type TestServer, deliver, metricValue, testServer } from './support/test-server.js';

let server: TestServer;
afterEach(async () => server.app.close());

describe('health and metrics', () => {
  it('is alive while the process is up, even with the queue down', async () => {
    server = testServer();
    server.queue.down = true;
    const res = await server.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
  });

  it("says which version of fluxlens is running: package.json's", async () => {
    server = testServer();
    const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    const res = await server.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.json()).toEqual({ status: 'ok', version: manifest.version });
  });

  it('is ready when the queue answers, and not when it does not', async () => {
    server = testServer();
    const ready = await server.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ ok: true, checks: { queue: true } });
    server.queue.down = true;
    const notReady = await server.app.inject({ method: 'GET', url: '/readyz' });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toEqual({
      ok: false,
      checks: { queue: false },
      reason: 'the queue does not answer',
    });
  });

  it('answers 503 when the injected readiness fails or throws', async () => {
    server = testServer({
      readiness: async () => ({ ok: false, checks: { redis: true, github: false } }),
    });
    const res = await server.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ ok: false, checks: { redis: true, github: false } });
    await server.app.close();

    server = testServer({ readiness: () => Promise.reject(new Error('redis timeout')) });
    const thrown = await server.app.inject({ method: 'GET', url: '/readyz' });
    expect(thrown.statusCode).toBe(503);
    expect(thrown.body).not.toContain('redis timeout');
  });

  it('exposes queue depth by state at scrape time', async () => {
    server = testServer();
    server.queue.depthNow = { waiting: 3, active: 2, delayed: 1, failed: 4 };
    const res = await server.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(await metricValue(server.app, 'fluxlens_queue_depth{state="waiting"}')).toBe(3);
    expect(await metricValue(server.app, 'fluxlens_queue_depth{state="failed"}')).toBe(4);
  });

  it('still scrapes when the queue is down, without stale depth', async () => {
    server = testServer();
    server.queue.depthNow = { waiting: 3, active: 0, delayed: 0, failed: 0 };
    expect(await metricValue(server.app, 'fluxlens_queue_depth{state="waiting"}')).toBe(3);
    server.queue.down = true;
    const res = await server.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('fluxlens_queue_depth{');
  });

  it('moves the delivery counter with each delivery', async () => {
    server = testServer();
    const sample = 'fluxlens_webhook_deliveries_total{event="pull_request",outcome="enqueued"}';
    expect(await metricValue(server.app, sample)).toBe(0);
    await deliver(server.app, 'pull_request', example('pull_request', 'opened'));
    await deliver(server.app, 'pull_request', example('pull_request', 'synchronize'));
    expect(await metricValue(server.app, sample)).toBe(2);
  });

  it('keeps the counters of two apps in one process apart', async () => {
    server = testServer();
    const other = testServer();
    try {
      await deliver(server.app, 'ping', example('ping'));
      const sample = 'fluxlens_webhook_deliveries_total{event="ping",outcome="ping"}';
      expect(await metricValue(server.app, sample)).toBe(1);
      expect(await metricValue(other.app, sample)).toBe(0);
    } finally {
      await other.app.close();
    }
  });

  it('answers unknown paths with a JSON 404', async () => {
    server = testServer();
    const res = await server.app.inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not found' });
  });
});
