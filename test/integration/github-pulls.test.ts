import { describe, expect, it } from 'vitest';
import { classify } from '../../src/errors.js';
import { GitHubError } from '../../src/github/index.js';
import { HEAD_SHA, INSTALLATION_ID, REPO, useFixtures } from '../support/github-fixture.js';

const fixtures = useFixtures();

const PULLS = '/repos/acme/gitops/pulls';

describe('pull request reads', () => {
  it('reads head, base, draft and fork of a pull request', async () => {
    const fixture = await fixtures.app();
    const { emulator, client } = fixture;
    emulator.seedPull({
      ...REPO,
      number: 9,
      headSha: HEAD_SHA,
      baseRef: 'release',
      draft: true,
      fork: true,
    });
    emulator.expect('POST', `/app/installations/${INSTALLATION_ID}/access_tokens`);
    emulator.expect('GET', `${PULLS}/9`);

    const pull = await client.forInstallation(INSTALLATION_ID).getPull({ ...REPO, pullNumber: 9 });

    expect(pull).toEqual({
      number: 9,
      state: 'open',
      draft: true,
      headSha: HEAD_SHA,
      headRef: 'branch-9',
      baseRef: 'release',
      fromFork: true,
    });
  });

  it('lists every open pull request across pages', async () => {
    const fixture = await fixtures.app({ pageSize: 2 });
    const { emulator, client } = fixture;
    for (let number = 1; number <= 5; number += 1) {
      emulator.seedPull({ ...REPO, number, headSha: String(number).repeat(40) });
    }
    emulator.seedPull({ ...REPO, number: 6, headSha: HEAD_SHA, state: 'closed' });
    emulator.expect('POST', `/app/installations/${INSTALLATION_ID}/access_tokens`);
    emulator.expect('GET', PULLS, 3);

    const pulls = await client.forInstallation(INSTALLATION_ID).listOpenPulls(REPO);

    expect(pulls.map((p) => p.number)).toEqual([5, 4, 3, 2, 1]);
    expect(pulls.every((p) => !p.fromFork && p.baseRef === 'main')).toBe(true);
  });

  it("lists the installation's repositories across pages", async () => {
    const fixture = await fixtures.app({ pageSize: 2 });
    const { emulator, client } = fixture;
    emulator.seedInstallation({ id: 78, repositories: ['acme/a', 'acme/b', 'other/c'] });
    emulator.expect('POST', '/app/installations/78/access_tokens');
    emulator.expect('GET', '/installation/repositories', 2);

    const repos = await client.forInstallation(78).listInstallationRepos();

    expect(repos).toEqual([
      { owner: 'acme', repo: 'a', archived: false },
      { owner: 'acme', repo: 'b', archived: false },
      { owner: 'other', repo: 'c', archived: false },
    ]);
  });

  it('refuses to list installation repositories with a personal token', async () => {
    const fixture = await fixtures.token();

    const err = await fixture.client
      .forInstallation()
      .listInstallationRepos()
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(GitHubError);
    expect(classify(err)).toBe('usage');
  });
});
