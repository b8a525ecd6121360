import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/errors.js';
import { GitHubError } from '../../src/github/index.js';
import { createTestAppKey } from '../support/github-emulator.js';
import {
  APP_LOGIN,
  HEAD_SHA,
  INSTALLATION_ID,
  REPO,
  USER_TOKEN,
  useFixtures,
} from '../support/github-fixture.js';
import { CHECK_RUN_NAME as NAME } from '../../src/review/index.js';
import { projectRoot } from '../support/paths.js';

const fixtures = useFixtures();

async function rejection(promise: Promise<unknown>): Promise<GitHubError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GitHubError);
  return err as GitHubError;
}

describe('GitHub App credentials', () => {
  it('exchanges the App JWT for one installation token and reuses it for several writes', async () => {
    const fixture = await fixtures.app();
    const { emulator, client } = fixture;
    emulator.seedPull({ ...REPO, number: 7, headSha: HEAD_SHA });
    emulator.expect('POST', `/app/installations/${INSTALLATION_ID}/access_tokens`);
    emulator.expect('GET', '/repos/acme/gitops/pulls/7');
    emulator.expect('GET', '/repos/acme/gitops/commits/:sha/check-runs');
    emulator.expect('POST', '/repos/acme/gitops/check-runs');
    emulator.expect('POST', '/repos/acme/gitops/statuses/:sha');

    const writer = client.forInstallation(INSTALLATION_ID);
    await writer.getPull({ ...REPO, pullNumber: 7 });
    await writer.ensureCheckRun({ ...REPO, headSha: HEAD_SHA, name: NAME, status: 'in_progress' });
    await client.forInstallation(INSTALLATION_ID).ensureStatus({
      ...REPO,
      sha: HEAD_SHA,
      state: 'pending',
      description: 'Rendering',
      context: 'fluxlens',
    });
    const gitToken = await client.installationToken(INSTALLATION_ID);

    expect(gitToken).toMatch(/^ghs_/);
    expect(emulator.state().tokensIssued).toEqual({ [INSTALLATION_ID]: 1 });
    const repoCalls = emulator.requests(undefined, '/repos/**');
    expect(repoCalls.map((r) => [r.auth, r.installationId])).toEqual(
      Array(4).fill(['installation', INSTALLATION_ID]),
    );
    expect(emulator.requests('POST', '/app/**').map((r) => r.auth)).toEqual(['jwt']);
  });

  it("verifies App credentials as the App's bot login", async () => {
    const fixture = await fixtures.app();
    fixture.emulator.expect('GET', '/app');

    await expect(fixture.client.verifyCredentials()).resolves.toBe(APP_LOGIN);
  });

  it('refuses an App key GitHub does not know, naming no part of the key', async () => {
    const otherKey = createTestAppKey().privateKey;
    const fixture = await fixtures.app({ privateKey: otherKey });
    fixture.emulator.expect('GET', '/app');

    const err = await rejection(fixture.client.verifyCredentials());

    expect(err.status).toBe(401);
    expect(classify(err)).toBe('setup');
    expect(err.message).toMatch(/GitHub rejected the App 4242 and its private key/);
    const printed = `${inspect(err)} ${JSON.stringify(err)}`;
    for (const line of otherKey.split('\n').filter((l) => l.length > 20)) {
      expect(printed).not.toContain(line);
    }
  });

  it('needs the installation id in App mode', async () => {
    const fixture = await fixtures.app();

    expect(() => fixture?.client.forInstallation()).toThrow(GitHubError);
    const err = await rejection(fixture.client.installationToken());
    expect(classify(err)).toBe('usage');
  });

  it('talks to GitHub Enterprise Server under its /api/v3 prefix', async () => {
    const fixture = await fixtures.app({ pathPrefix: '/api/v3' });
    const { emulator, client } = fixture;
    emulator.expect('POST', `/app/installations/${INSTALLATION_ID}/access_tokens`);
    emulator.expect('GET', '/repos/acme/gitops/commits/:sha/check-runs');
    emulator.expect('POST', '/repos/acme/gitops/check-runs');
    emulator.expect('GET', '/app');

    expect(emulator.apiUrl).toMatch(/\/api\/v3$/);
    const outcome = await client
      .forInstallation(INSTALLATION_ID)
      .ensureCheckRun({ ...REPO, headSha: HEAD_SHA, name: NAME, status: 'in_progress' });
    await expect(client.verifyCredentials()).resolves.toBe(APP_LOGIN);

    expect(outcome.action).toBe('created');
    expect(emulator.requests().every((r) => r.status < 400)).toBe(true);
    expect(emulator.state().checkRuns).toHaveLength(1);
  });
});

describe('personal access token', () => {
  it("writes with the token and knows the token's user", async () => {
    const fixture = await fixtures.token();
    const { emulator, client } = fixture;
    emulator.expect('GET', '/user');
    emulator.expect('POST', '/repos/acme/gitops/statuses/:sha');

    await expect(client.verifyCredentials()).resolves.toBe('ci-bot');
    await expect(client.installationToken()).resolves.toBe(USER_TOKEN);
    await client.forInstallation().ensureStatus({
      ...REPO,
      sha: HEAD_SHA,
      state: 'success',
      description: 'No changes',
      context: 'fluxlens',
    });

    expect(emulator.requests().map((r) => r.auth)).toEqual(['pat', 'pat']);
    expect(emulator.state().statuses).toMatchObject([
      { sha: HEAD_SHA, state: 'success', context: 'fluxlens', creator: 'ci-bot' },
    ]);
  });

  it("names fluxlens and package.json's version in every request's User-Agent", async () => {
    const fixture = await fixtures.token();
    const { emulator, client } = fixture;
    emulator.expect('GET', '/user');
    emulator.expect('POST', '/repos/acme/gitops/statuses/:sha');
    const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
      version: string;
    };

    await client.verifyCredentials();
    await client.forInstallation().ensureStatus({
      ...REPO,
      sha: HEAD_SHA,
      state: 'success',
      description: 'No changes',
      context: 'fluxlens',
    });

    const agents = emulator.requests().map((r) => r.userAgent.split(' ')[0]);
    expect(agents).toEqual(Array(2).fill(`fluxlens/${manifest.version}`));
  });

  it('refuses a wrong token with a clear error that does not contain it', async () => {
    const wrong = 'ghp_wrongToken0123456789abcdefghijklmn';
    const fixture = await fixtures.token({ token: wrong });
    fixture.emulator.expect('GET', '/user');
    fixture.emulator.expect('GET', '/repos/acme/gitops/pulls/7');

    const verify = await rejection(fixture.client.verifyCredentials());
    const read = await rejection(
      fixture.client.forInstallation().getPull({ ...REPO, pullNumber: 7 }),
    );

    expect(verify.message).toMatch(/GitHub rejected the token/);
    expect(read).toMatchObject({ status: 401 });
    expect(classify(read)).toBe('setup');
    expect(read.message).toMatch(/GET \/repos\/acme\/gitops\/pulls\/7 answered 401/);
    for (const err of [verify, read]) {
      expect(`${inspect(err)} ${JSON.stringify(err)}`).not.toContain(wrong);
    }
    expect(fixture.emulator.requests().map((r) => r.auth)).toEqual(['invalid', 'invalid']);
  });
});
