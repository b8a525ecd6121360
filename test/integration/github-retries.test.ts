import { describe, expect, it } from 'vitest';
import { classify } from '../../src/errors.js';
import { GitHubError } from '../../src/github/index.js';
import {
  HEAD_SHA,
  INSTALLATION_ID,
  REPO,
  type Fixture,
  useFixtures,
} from '../support/github-fixture.js';
import { CHECK_RUN_NAME as NAME } from '../../src/review/index.js';

const fixtures = useFixtures();

const RUNS = '/repos/acme/gitops/check-runs';
const LIST = `/repos/acme/gitops/commits/${HEAD_SHA}/check-runs`;
const COMMENTS = '/repos/acme/gitops/issues/3/comments';
const started = { ...REPO, headSha: HEAD_SHA, name: NAME, status: 'in_progress' } as const;

async function appFixture(extras: Parameters<typeof fixtures.app>[0] = {}): Promise<Fixture> {
  const fixture = await fixtures.app(extras);
  fixture.emulator.expect('POST', `/app/installations/${INSTALLATION_ID}/access_tokens`);
  return fixture;
}

describe('GitHub failures on the way', () => {
  it('retries a 502 and creates the check run once', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST);
    emulator.fail('POST', RUNS, 'bad-gateway');
    emulator.expect('POST', RUNS);

    const outcome = await client.forInstallation(INSTALLATION_ID).ensureCheckRun(started);

    expect(outcome.action).toBe('created');
    expect(emulator.requests('POST', RUNS).map((r) => r.status)).toEqual([502, 201]);
    expect(emulator.state().checkRuns).toHaveLength(1);
  });

  it('tells the caller the status of every answer, retries included, for metrics', async () => {
    const statuses: string[] = [];
    const { emulator, client } = await appFixture({ onResponse: (s) => statuses.push(s) });
    emulator.expect('GET', LIST);
    emulator.fail('POST', RUNS, 'bad-gateway');
    emulator.expect('POST', RUNS);

    await client.forInstallation(INSTALLATION_ID).ensureCheckRun(started);

    // The token exchange, the list, the 502 and its retry.
    expect(statuses).toEqual(['201', '200', '502', '201']);
  });

  it('waits out a rate limit with retry-after and posts the comment once', async () => {
    const { emulator, client, warnings } = await appFixture();
    emulator.expect('GET', '/app');
    emulator.expect('GET', COMMENTS);
    emulator.fail('POST', COMMENTS, 'rate-limit');
    emulator.expect('POST', COMMENTS);

    await client
      .forInstallation(INSTALLATION_ID)
      .ensureComment({ ...REPO, issueNumber: 3, marker: '<!-- fluxlens -->', body: 'hello' });

    expect(emulator.requests('POST', COMMENTS).map((r) => r.status)).toEqual([403, 201]);
    expect(emulator.state().comments).toHaveLength(1);
    expect(warnings).toMatchObject([
      { message: 'GitHub rate limit', fields: { kind: 'primary', willRetry: true } },
    ]);
  });

  it('waits out a secondary rate limit and updates the check run once', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST, 2);
    emulator.expect('POST', RUNS);
    emulator.fail('PATCH', `${RUNS}/:id`, 'secondary-rate-limit');
    emulator.expect('PATCH', `${RUNS}/:id`);
    const writer = client.forInstallation(INSTALLATION_ID);

    await writer.ensureCheckRun(started);
    const done = await writer.ensureCheckRun({
      ...started,
      status: 'completed',
      conclusion: 'success',
      output: { title: 'No changes', summary: 'Nothing to review.' },
    });

    expect(done.action).toBe('updated');
    expect(emulator.state().checkRuns).toMatchObject([{ status: 'completed', writes: 2 }]);
  });

  it('gives up after the bounded retries with a transient error', async () => {
    const { emulator, client } = await appFixture({ retry: { retries: 2, retryBaseMs: 2 } });
    emulator.fail('GET', '/repos/acme/gitops/pulls/5', 'bad-gateway', 3);

    const err = await client
      .forInstallation(INSTALLATION_ID)
      .getPull({ ...REPO, pullNumber: 5 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({ status: 502 });
    expect(classify(err)).toBe('transient');
  });

  it('fails transient when a rate limit outlasts what it may wait', async () => {
    const { emulator, client } = await appFixture({ retry: { maxRateLimitWaitSeconds: 0 } });
    emulator.fail('GET', '/repos/acme/gitops/pulls/5', 'rate-limit');

    const err = await client
      .forInstallation(INSTALLATION_ID)
      .getPull({ ...REPO, pullNumber: 5 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({ status: 403 });
    expect(classify(err)).toBe('transient');
  });

  it('does not retry a permanent refusal', async () => {
    const { emulator, client } = await appFixture();
    emulator.fail('GET', '/repos/acme/gitops/pulls/5', { status: 404, message: 'Not Found' });

    const err = await client
      .forInstallation(INSTALLATION_ID)
      .getPull({ ...REPO, pullNumber: 5 })
      .catch((e: unknown) => e);

    expect(err).toMatchObject({ status: 404 });
    expect(classify(err)).toBe('usage');
    expect(emulator.requests('GET', '/repos/**')).toHaveLength(1);
  });
});
