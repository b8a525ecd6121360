/**
 * The MCP endpoint's HTTP side through app.inject: it exists only with an API token, takes
 * only that token, answers stateless JSON, and refuses a repository out of reach (allowlist,
 * no installation) or past the re-render limits before anything is queued.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createInlineQueue, type InlineQueue } from '../../../src/queue/index.js';
import type { ServerDeps } from '../../../src/server/index.js';
import { API_TOKEN, testServer } from './support/test-server.js';

const queues: InlineQueue[] = [];
afterEach(async () => {
  await Promise.all(queues.splice(0).map((queue) => queue.close()));
});

function start(overrides: Partial<ServerDeps> = {}) {
  const queue = createInlineQueue();
  queues.push(queue);
  const { app } = testServer({ apiToken: API_TOKEN, queue, deliveries: queue, ...overrides });
  return { app, queue };
}

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

let ids = 0;
async function callTool(
  app: ReturnType<typeof testServer>['app'],
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string }> {
  const response = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${API_TOKEN}` },
    payload: { jsonrpc: '2.0', id: ++ids, method: 'tools/call', params: { name, arguments: args } },
  });
  expect(response.statusCode, response.body).toBe(200);
  const { result } = response.json<{
    result: { isError?: boolean; content: Array<{ text: string }> };
  }>();
  return { isError: result.isError === true, text: result.content.map((c) => c.text).join('') };
}

const BRANCH = { owner: 'flux-org', repo: 'fleet', base: 'main', head: 'feature' };

describe('the MCP endpoint', () => {
  it('does not exist without an API token', async () => {
    const { app } = testServer();
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: MCP_HEADERS,
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(response.statusCode).toBe(404);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer ${API_TOKEN}-not`],
    ['another scheme', `Basic ${API_TOKEN}`],
  ])('answers 401 to %s', async (_case, authorization) => {
    const { app } = start();
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...MCP_HEADERS, ...(authorization === undefined ? {} : { authorization }) },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('opens no stream and ends no session: GET and DELETE are 405', async () => {
    const { app } = start();
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await app.inject({
        method,
        url: '/mcp',
        headers: { authorization: `Bearer ${API_TOKEN}` },
      });
      expect(response.statusCode).toBe(405);
    }
  });

  it('refuses a repository outside the allowlist and queues nothing', async () => {
    const { app, queue } = start({ repositoryAllowlist: ['flux-org/other'] });
    expect(await callTool(app, 'review_branch', BRANCH)).toEqual({
      isError: true,
      text: "flux-org/fleet is not in this server's repository allowlist",
    });
    expect((await queue.depth()).waiting).toBe(0);
  });

  it('refuses a repository the App is not installed on, asking GitHub once a minute', async () => {
    const asked: string[] = [];
    const { app, queue } = start({
      installation: async ({ owner, repo }) => {
        asked.push(`${owner}/${repo}`);
        return { installed: false };
      },
    });
    const refused = {
      isError: true,
      text: 'the GitHub App is not installed on flux-org/fleet',
    };
    expect(await callTool(app, 'review_branch', BRANCH)).toEqual(refused);
    expect(await callTool(app, 'list_reviews', { owner: 'flux-org', repo: 'fleet' })).toEqual(
      refused,
    );
    expect(asked).toEqual(['flux-org/fleet']);
    expect((await queue.depth()).waiting).toBe(0);
  });

  it('queues a branch with the installation that covers it, within the re-render limits', async () => {
    const { app, queue } = start({
      installation: async () => ({ installed: true, installationId: 77 }),
      rateLimits: { apiRendersPerToken: 1 },
    });
    const first = await callTool(app, 'review_branch', BRANCH);
    expect(first.isError, first.text).toBe(false);
    const { job } = JSON.parse(first.text) as { job: string };
    expect(await queue.state(job)).toMatchObject({
      status: 'waiting',
      range: { owner: 'flux-org', repo: 'fleet', base: 'main', head: 'feature' },
    });
    expect(await callTool(app, 'review_branch', { ...BRANCH, head: 'other' })).toEqual({
      isError: true,
      text: 'too many render requests, try again later',
    });
    const status = await callTool(app, 'review_status', { job });
    expect(JSON.parse(status.text)).toMatchObject({ jobId: job, status: 'waiting' });
  });
});
