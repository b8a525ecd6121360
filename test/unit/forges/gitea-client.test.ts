/**
 * The Gitea/Forgejo client's failures, against a local server that answers as a forge
 * does: each becomes an error whose class decides retry or give up, and whose message
 * names the request but never the token, even when the forge echoes it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classify } from '../../../src/errors.js';
import { createGiteaClient } from '../../../src/forges/index.js';

const TOKEN = 'gitea-token-Zq9-never-shown';

let server: Server;
let url: string;
let answer: { status: number; body: unknown } = { status: 200, body: {} };
const seen: Array<{ method: string; path: string; authorization: string }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({
      method: request.method ?? '',
      path: request.url ?? '',
      authorization: request.headers.authorization ?? '',
    });
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function failure(status: number, body: unknown): Promise<Error> {
  answer = { status, body };
  const client = createGiteaClient({ url, token: TOKEN });
  try {
    await client.forInstallation().getPull({ owner: 'home-ops', repo: 'cluster', pullNumber: 4 });
  } catch (err) {
    if (err instanceof Error) return err;
  }
  throw new Error('the call succeeded');
}

describe('the Gitea client', () => {
  it('sends the token in the Authorization header of each API call', async () => {
    answer = { status: 200, body: { id: 1, login: 'fluxlens' } };
    await createGiteaClient({ url, token: TOKEN }).login();
    expect(seen.at(-1)).toEqual({
      method: 'GET',
      path: '/api/v1/user',
      authorization: `token ${TOKEN}`,
    });
  });

  it.each([
    [401, 'setup'],
    [403, 'setup'],
    [404, 'usage'],
    [422, 'usage'],
    [429, 'transient'],
    [500, 'transient'],
    [503, 'transient'],
  ])('classifies an answer %i as %s, without the token it echoed', async (status, kind) => {
    const err = await failure(status, { message: `token ${TOKEN} is not good here` });
    expect(classify(err)).toBe(kind);
    expect(err.message).toContain(`GET /repos/home-ops/cluster/pulls/4 answered ${status}`);
    expect(err.message).not.toContain(TOKEN);
  });

  it('refuses an answer that lacks a field it reads, as one that will not pass', async () => {
    const err = await failure(200, { number: 4, state: 'open' });
    expect(classify(err)).toBe('usage');
    expect(err.message).toMatch(/cannot read \(at "head"\)/);
  });

  it('classifies a forge that does not answer as transient', async () => {
    const client = createGiteaClient({ url: 'http://127.0.0.1:1', token: TOKEN });
    const err = await client.login().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(classify(err)).toBe('transient');
    expect((err as Error).message).not.toContain(TOKEN);
  });
});
