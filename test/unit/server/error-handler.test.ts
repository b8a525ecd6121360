import { afterEach, describe, expect, it } from 'vitest';
import {
  CancelledError,
  FluxlensError,
  RevisionError,
  SetupError,
  UsageError,
} from '../../../src/errors.js';
import { GitHubError } from '../../../src/github/index.js';
import { type TestServer, testServer } from './support/test-server.js';

let server: TestServer;
afterEach(async () => server.app.close());

/** A server with one extra route that throws `err`, answered through the app's handler. */
async function answerTo(err: unknown) {
  server = testServer();
  server.app.get('/raise', () => {
    throw err;
  });
  const res = await server.app.inject({ method: 'GET', url: '/raise' });
  const metrics = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
  const rejections = metrics
    .split('\n')
    .filter((line) => line.startsWith('fluxlens_http_rejections_total{'));
  return { res, rejections };
}

const aborted = Object.assign(new Error('the operation was aborted'), { name: 'AbortError' });

describe('errors a route throws', () => {
  it.each([
    ['a usage error', new UsageError('owner must be a GitHub login'), 400],
    [
      'a revision nobody has',
      new RevisionError('bad-revision', 'no such revision', 'unknown'),
      400,
    ],
    [
      'a request GitHub refused for good',
      new GitHubError('POST /repos/o/r/check-runs answered 422: invalid', {
        status: 422,
        transient: false,
      }),
      400,
    ],
  ])('answers %s with 400 and says what was wrong', async (_name, err, status) => {
    const { res, rejections } = await answerTo(err);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: err.message });
    expect(rejections).toEqual([]);
  });

  it.each([
    ['a missing tool or setting', new SetupError('kustomize is not on PATH at /opt/tools')],
    [
      'a GitHub that did not answer',
      new GitHubError('GET /repos/o/r failed: connect ECONNREFUSED', { transient: true }),
    ],
    ['a tool that timed out', new FluxlensError('tool-timeout', 'helm ran past 120 s')],
  ])('answers %s with 503 and a retry-after, naming no internals', async (_name, err) => {
    const { res, rejections } = await answerTo(err);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.json()).toEqual({ error: 'service unavailable' });
    expect(rejections).toEqual([]);
  });

  it.each([
    ['work cancelled on purpose', new CancelledError('superseded by a newer head')],
    ['an aborted call', aborted],
  ])('answers %s with 409', async (_name, err) => {
    const { res } = await answerTo(err);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'conflict' });
  });

  it.each([
    ['a bug', new TypeError("cannot read properties of undefined (reading 'sha')")],
    ['a tool failure fluxlens cannot name', new FluxlensError('tool', 'git exited 129')],
    ['something thrown that is not an error', 'a bare string'],
  ])('answers %s with 500 that says nothing about internals', async (_name, err) => {
    const { res, rejections } = await answerTo(err);
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'internal error' });
    expect(server.logs.some((line) => line.includes('"msg":"request failed"'))).toBe(true);
    expect(rejections).toEqual([]);
  });
});
