import { afterEach, describe, expect, it } from 'vitest';
import { classify } from '../../src/errors.js';
import { startGitHubEmulator, type GitHubEmulator } from '../support/github-emulator.js';
import { findOperation, responseProblems } from '../support/github-emulator-contract.js';
import {
  type Fixture,
  HEAD_SHA,
  INSTALLATION_ID,
  REPO,
  finish,
  startAppFixture,
} from '../support/github-fixture.js';

let emulator: GitHubEmulator | undefined;
let fixture: Fixture | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
  await finish(fixture);
  fixture = undefined;
});

describe('the GitHub emulator', () => {
  it('names a request nobody expected and an expectation left unused', async () => {
    emulator = await startGitHubEmulator({
      user: { login: 'ci-bot', token: 'ghp_emulatorSelfTest01' },
    });
    emulator.expect('GET', '/repos/:owner/:repo/pulls/1');
    emulator.expect('POST', '/repos/acme/gitops/check-runs');

    const res = await fetch(`${emulator.apiUrl}/repos/acme/gitops/pulls/1`, {
      headers: { authorization: 'token ghp_emulatorSelfTest01' },
    });
    await fetch(`${emulator.apiUrl}/user`, { headers: { authorization: 'token nope' } });

    expect(res.status).toBe(404);
    expect(() => emulator?.assertNoUnexpected()).toThrow(/GET \/user/);
    expect(() => emulator?.assertAllUsed()).toThrow(
      /POST \/repos\/acme\/gitops\/check-runs \(1 more\)/,
    );
    expect(emulator.requests().map((r) => r.auth)).toEqual(['pat', 'invalid']);
  });

  it('serves its recorded state as JSON, without any token in it', async () => {
    fixture = await startAppFixture();
    fixture.emulator.expect('POST', `/app/installations/${INSTALLATION_ID}/access_tokens`);
    fixture.emulator.expect('POST', `/repos/acme/gitops/statuses/${HEAD_SHA}`);
    await fixture.client.forInstallation(INSTALLATION_ID).ensureStatus({
      ...REPO,
      sha: HEAD_SHA,
      state: 'pending',
      description: 'Rendering',
      context: 'fluxlens',
    });
    const token = await fixture.client.installationToken(INSTALLATION_ID);

    const res = await fetch(`${fixture.emulator.url}/__emulator/state`);
    const text = await res.text();

    expect(JSON.parse(text)).toMatchObject({
      statuses: [{ sha: HEAD_SHA, state: 'pending', creator: 'fluxlens-test[bot]' }],
      tokensIssued: { [INSTALLATION_ID]: 1 },
    });
    expect(text).not.toContain(token);
  });

  it('refuses an installation token for a repository outside the installation', async () => {
    fixture = await startAppFixture();
    fixture.emulator.expect('POST', `/app/installations/${INSTALLATION_ID}/access_tokens`);
    fixture.emulator.expect('GET', '/repos/elsewhere/private/pulls/1');

    const err = await fixture.client
      .forInstallation(INSTALLATION_ID)
      .getPull({ owner: 'elsewhere', repo: 'private', pullNumber: 1 })
      .catch((e: unknown) => e);

    expect(err).toMatchObject({ status: 404 });
    expect(classify(err)).toBe('usage');
  });
});

describe("the GitHub emulator held to GitHub's REST description", () => {
  /** An emulator with the fixture's App, and a token of its installation. */
  async function appEmulator(): Promise<{ emulator: GitHubEmulator; token: string }> {
    fixture = await startAppFixture();
    fixture.emulator.allow('*', '**');
    const token = await fixture.client.installationToken(INSTALLATION_ID);
    return { emulator: fixture.emulator, token };
  }
  const send = (
    emulator: GitHubEmulator,
    token: string,
    method: string,
    path: string,
    body?: unknown,
  ) =>
    fetch(`${emulator.apiUrl}${path}`, {
      method,
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it.each([
    [
      'a conclusion GitHub does not know',
      { conclusion: 'passed' },
      /body\/conclusion must be equal to one of the allowed values/,
    ],
    [
      'a summary over 65535 characters',
      { output: { title: 't', summary: 'x'.repeat(65_536) } },
      /body\/output\/summary must NOT have more than 65535 characters/,
    ],
    ['no head_sha', { head_sha: undefined }, /body must have required property 'head_sha'/],
    ['a status that is not a string', { status: 3 }, /body\/status must be string/],
  ])('answers 422 and fails the test on a check run with %s', async (_case, change, problem) => {
    const { emulator, token } = await appEmulator();
    const body = { name: 'fluxlens', head_sha: HEAD_SHA, ...change };

    const res = await send(emulator, token, 'POST', '/repos/acme/gitops/check-runs', body);

    expect(res.status).toBe(422);
    expect(emulator.state().checkRuns).toEqual([]);
    expect(() => emulator.assertNoUnexpected()).toThrow(problem);
    fixture = undefined;
    await emulator.close();
  });

  it('fails the test on a request for an operation GitHub does not have', async () => {
    const { emulator, token } = await appEmulator();

    const res = await send(
      emulator,
      token,
      'GET',
      `/repos/acme/gitops/commit/${HEAD_SHA}/check-runs`,
    );

    expect(res.status).toBe(404);
    expect(() => emulator.assertNoUnexpected()).toThrow(/GitHub has no such operation/);
    fixture = undefined;
    await emulator.close();
  });

  it("takes a refusal a test announces as no breach, and a parameter out of GitHub's range as one", async () => {
    const { emulator, token } = await appEmulator();
    emulator.refuse('POST', '/repos/acme/gitops/statuses/*');

    const refused = await send(emulator, token, 'POST', `/repos/acme/gitops/statuses/${HEAD_SHA}`, {
      state: 'passing',
    });
    expect(refused.status).toBe(422);
    expect(() => emulator.assertNoUnexpected()).not.toThrow();

    await send(emulator, token, 'GET', '/repos/acme/gitops/pulls?state=merged');
    expect(() => emulator.assertNoUnexpected()).toThrow(
      /query parameter state must be equal to one of the allowed values/,
    );
    fixture = undefined;
    await emulator.close();
  });

  it('tells an answer GitHub would not give from one it would', () => {
    const create = findOperation('POST', '/repos/acme/gitops/issues/7/comments');
    expect(create?.operationId).toBe('issues/create-comment');
    if (!create) return;

    expect(responseProblems(create, 201, { id: 1, body: 'hi' })).toContain(
      "response must have required property 'node_id'",
    );
    expect(responseProblems(create, 200, {})).toEqual(['GitHub documents no 200 answer']);
    // Errors GitHub does not list are not held against the emulator.
    expect(responseProblems(create, 502, { message: 'Server Error' })).toEqual([]);
  });
});
