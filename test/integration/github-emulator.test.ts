import { afterEach, describe, expect, it } from 'vitest';
import { startGitHubEmulator, type GitHubEmulator } from '../support/github-emulator.js';
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
    await fixture.client
      .forInstallation(INSTALLATION_ID)
      .ensureStatus({ ...REPO, sha: HEAD_SHA, state: 'pending', description: 'Rendering' });
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

    expect(err).toMatchObject({ status: 404, transient: false });
  });
});
