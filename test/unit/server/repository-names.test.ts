/**
 * Owner and repository names are GitHub's or refused at the door, webhook and API alike,
 * and one identity (owner.login/name, which full_name must agree with) is what the
 * allowlist, the job and every later call see.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Payload, example, set } from './support/github-examples.js';
import { API_TOKEN, type TestServer, deliver, testServer } from './support/test-server.js';

const HOSTILE: Array<[string, string]> = [
  ['..', '..'],
  ['.', 'fleet'],
  ['home-ops', '.'],
  ['a/b', 'fleet'],
  ['home-ops', 'a/b'],
  ['%2e%2e', 'fleet'],
  ['home-ops', '%2e%2e'],
  ['hôme-ops', 'fleet'],
  ['home-ops', 'flëet'],
  ['../../x', 'fleet'],
  ['home-ops', '../../x'],
];

let server: TestServer;
afterEach(async () => server.app.close());

/** An opened PR in `owner/repo`, full_name and all, unless `fullName` says otherwise. */
function openedIn(owner: string, repo: string, fullName = `${owner}/${repo}`): Payload {
  const payload = example('pull_request', 'opened');
  set(payload, 'repository.name', repo);
  set(payload, 'repository.full_name', fullName);
  set(payload, 'repository.owner.login', owner);
  return payload;
}

describe('repository names at the door', () => {
  it.each(HOSTILE)('refuses a webhook for owner %j and repository %j', async (owner, repo) => {
    server = testServer();
    const res = await deliver(server.app, 'pull_request', openedIn(owner, repo));
    expect(res.statusCode).toBe(400);
    expect(server.queue.enqueued).toEqual([]);
  });

  it.each(HOSTILE)(
    'refuses a render request for owner %j and repository %j',
    async (owner, repo) => {
      server = testServer({ apiToken: API_TOKEN });
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/v1/renders',
        headers: { authorization: `Bearer ${API_TOKEN}` },
        payload: { owner, repo, pull_number: 7 },
      });
      expect(res.statusCode).toBe(400);
      expect(server.queue.enqueued).toEqual([]);
    },
  );

  it.each(HOSTILE.filter(([owner, repo]) => !`${owner}${repo}`.includes('/')))(
    'refuses the stored result of owner %j and repository %j',
    async (owner, repo) => {
      server = testServer({ apiToken: API_TOKEN });
      const res = await server.app.inject({
        method: 'GET',
        url: `/api/v1/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pulls/7`,
        headers: { authorization: `Bearer ${API_TOKEN}` },
      });
      // `.` and `..` path segments are resolved by the URL itself, so no route matches.
      expect([400, 404]).toContain(res.statusCode);
      expect(server.results.reads).toEqual([]);
    },
  );

  it('refuses a payload whose full_name names another repository than owner and name', async () => {
    server = testServer({ repositoryAllowlist: ['example/home-ops'] });
    const payload = openedIn('attacker', 'target', 'example/home-ops');
    const res = await deliver(server.app, 'pull_request', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error:
        'unexpected payload: repository.full_name: full_name disagrees with owner.login and name',
    });
    expect(server.queue.enqueued).toEqual([]);
  });

  it('matches the allowlist on the name the review uses, whatever the case', async () => {
    server = testServer({ repositoryAllowlist: ['example/home-ops'] });
    const res = await deliver(server.app, 'pull_request', openedIn('Example', 'Home-Ops'));
    expect(res.statusCode).toBe(202);
    expect(server.queue.enqueued).toMatchObject([
      { pull: { owner: 'Example', repo: 'Home-Ops', pullNumber: 2 } },
    ]);
  });

  it('matches an allowlist written in another case, on the API too', async () => {
    server = testServer({ apiToken: API_TOKEN, repositoryAllowlist: ['Example/Home-Ops'] });
    const ask = (owner: string, repo: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/v1/renders',
        headers: { authorization: `Bearer ${API_TOKEN}` },
        payload: { owner, repo, pull_number: 7 },
      });
    expect((await ask('example', 'home-ops')).statusCode).toBe(202);
    expect((await ask('example', 'other')).statusCode).toBe(403);
  });
});
