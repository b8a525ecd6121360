import { describe, expect, it } from 'vitest';
import { classify } from '../../src/errors.js';
import { GitHubError } from '../../src/github/index.js';
import {
  APP_LOGIN,
  INSTALLATION_ID,
  REPO,
  type Fixture,
  useFixtures,
} from '../support/github-fixture.js';

const fixtures = useFixtures();

const MARKER = '<!-- fluxlens:sticky -->';
const COMMENTS = '/repos/acme/gitops/issues/12/comments';
const COMMENT = '/repos/acme/gitops/issues/comments/:id';
const pr = { ...REPO, issueNumber: 12, marker: MARKER };

async function appFixture(pageSize?: number): Promise<Fixture> {
  const fixture = await fixtures.app(pageSize === undefined ? {} : { pageSize });
  fixture.emulator.expect('POST', `/app/installations/${INSTALLATION_ID}/access_tokens`);
  fixture.emulator.expect('GET', '/app');
  return fixture;
}

describe('ensureComment', () => {
  it('creates the sticky comment, then edits it in place, then leaves it alone', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', COMMENTS, 3);
    emulator.expect('POST', COMMENTS);
    emulator.expect('PATCH', COMMENT);
    const writer = client.forInstallation(INSTALLATION_ID);

    const created = await writer.ensureComment({ ...pr, body: `${MARKER}\nNo changes.` });
    const updated = await writer.ensureComment({ ...pr, body: `${MARKER}\n1 object changed.` });
    const unchanged = await writer.ensureComment({ ...pr, body: `${MARKER}\n1 object changed.` });

    expect(created.action).toBe('created');
    expect(updated).toEqual({ id: created.id, action: 'updated' });
    expect(unchanged).toEqual({ id: created.id, action: 'unchanged' });
    expect(emulator.state().comments).toMatchObject([
      { id: created.id, author: APP_LOGIN, body: `${MARKER}\n1 object changed.` },
    ]);
  });

  it("never edits another user's comment, even one that carries our marker", async () => {
    const { emulator, client } = await appFixture();
    const quoted = `> ${MARKER}\n> looks fine to me`;
    const theirs = emulator.seedComment({ ...pr, body: quoted, author: 'mallory' });
    emulator.expect('GET', COMMENTS);
    emulator.expect('POST', COMMENTS);

    const outcome = await client
      .forInstallation(INSTALLATION_ID)
      .ensureComment({ ...pr, body: 'Danger: 1 finding.' });

    expect(outcome.action).toBe('created');
    expect(outcome.id).not.toBe(theirs);
    expect(emulator.state().comments).toMatchObject([
      { id: theirs, author: 'mallory', body: quoted },
      { id: outcome.id, author: APP_LOGIN, body: `${MARKER}\nDanger: 1 finding.` },
    ]);
  });

  it('finds our comment on a later page of a long conversation', async () => {
    const { emulator, client } = await appFixture(2);
    for (let i = 0; i < 5; i += 1) {
      emulator.seedComment({ ...pr, body: `comment ${i}`, author: 'alice' });
    }
    const ours = emulator.seedComment({
      ...pr,
      body: `${MARKER}\nold`,
      author: APP_LOGIN,
      authorType: 'Bot',
    });
    emulator.expect('GET', COMMENTS, 3);
    emulator.expect('PATCH', COMMENT);

    const outcome = await client
      .forInstallation(INSTALLATION_ID)
      .ensureComment({ ...pr, body: `${MARKER}\nnew` });

    expect(outcome).toEqual({ id: ours, action: 'updated' });
    expect(emulator.requests('GET', COMMENTS).map((r) => r.query.page ?? '1')).toEqual([
      '1',
      '2',
      '3',
    ]);
  });

  it('reports a body longer than GitHub allows as a permanent error', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', COMMENTS);
    emulator.expect('POST', COMMENTS);

    const err = await client
      .forInstallation(INSTALLATION_ID)
      .ensureComment({ ...pr, body: 'x'.repeat(65_537) })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({ status: 422 });
    expect(classify(err)).toBe('usage');
    expect(emulator.state().comments).toEqual([]);
  });
});

describe('ensureComment with an App installation token, which GitHub will not name', () => {
  it("edits only a marked comment an App wrote: not a person's, nor a bot account's without an App", async () => {
    const { emulator, client } = await fixtures.installationToken();
    const seed = (author: string, type: 'User' | 'Bot', viaApp?: { id: number; slug: string }) =>
      emulator.seedComment({
        ...REPO,
        issueNumber: 12,
        body: `${MARKER}\nnot fluxlens`,
        author,
        authorType: type,
        ...(viaApp ? { viaApp } : {}),
      });
    const person = seed('alice', 'User');
    const botAccount = seed('legacy-bot', 'Bot');
    emulator.expect('GET', '/user');
    emulator.expect('GET', COMMENTS, 2);
    emulator.expect('POST', COMMENTS);
    emulator.expect('PATCH', COMMENT);
    const writer = client.forInstallation();

    const created = await writer.ensureComment({ ...pr, body: `${MARKER}\nfirst` });
    const updated = await writer.ensureComment({ ...pr, body: `${MARKER}\nsecond` });

    expect(created.action).toBe('created');
    expect(updated).toEqual({ id: created.id, action: 'updated' });
    const bodies = new Map(emulator.state().comments.map((c) => [c.id, c.body]));
    expect(bodies.get(person)).toBe(`${MARKER}\nnot fluxlens`);
    expect(bodies.get(botAccount)).toBe(`${MARKER}\nnot fluxlens`);
    expect(bodies.get(created.id)).toBe(`${MARKER}\nsecond`);
    // GET /user was asked once per client: the 403 is remembered as the answer.
    expect(emulator.requests('GET', '/user').map((r) => r.status)).toEqual([403]);
  });
});

describe('findComment and addReaction', () => {
  it('finds nothing before the first review, and reacts to a command comment once', async () => {
    const { emulator, client } = await appFixture();
    const command = emulator.seedComment({ ...pr, body: '/fluxlens render', author: 'alice' });
    emulator.expect('GET', COMMENTS);
    emulator.expect('POST', `/repos/acme/gitops/issues/comments/${command}/reactions`, 2);
    const writer = client.forInstallation(INSTALLATION_ID);

    await expect(writer.findComment(pr)).resolves.toBeUndefined();
    await writer.addReaction({ ...REPO, commentId: command, content: 'eyes' });
    await writer.addReaction({ ...REPO, commentId: command, content: 'eyes' });

    expect(emulator.state().reactions).toMatchObject([
      { commentId: command, content: 'eyes', author: APP_LOGIN },
    ]);
  });
});
