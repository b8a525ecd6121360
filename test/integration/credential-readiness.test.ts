/**
 * `fluxlens serve`'s /readyz says when GitHub refuses the credentials: the real server
 * (buildServer, app.inject) with a real inline queue, its credentials watched through the
 * real client against the GitHub emulator. A refusal is one error line, never the
 * credential; a network failure or a 5xx leaves the server ready; a later acceptance
 * makes it ready again.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CredentialWatch,
  type GitHubClient,
  createGitHubClient,
  watchCredentials,
} from '../../src/github/index.js';
import { createLogger } from '../../src/logger.js';
import { createInlineQueue } from '../../src/queue/index.js';
import { buildServer } from '../../src/server/index.js';
import { createTestAppKey } from '../support/github-emulator.js';
import {
  APP_LOGIN,
  FAST,
  type Fixture,
  USER_TOKEN,
  testAppKey,
  useFixtures,
} from '../support/github-fixture.js';
import { sleep } from '../support/service.js';
import { CHECK_RUN_NAME } from '../../src/review/index.js';

const fixtures = useFixtures();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Served {
  app: FastifyInstance;
  watch: CredentialWatch;
  logs: () => Array<{ level: number; msg: string; reason?: string }>;
}

/** The server as serve-command wires it, checking `github` every few milliseconds on retry. */
function serve(github: GitHubClient, retryIntervalMs = 60_000): Served {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (l) => lines.push(l) } });
  const watch = watchCredentials(github, logger, { retryIntervalMs, acceptedIntervalMs: 60_000 });
  const queue = createInlineQueue();
  const app = buildServer({
    logger,
    queue,
    deliveries: queue,
    results: queue.results,
    insecureNoWebhookSecret: true,
    renderDrafts: false,
    renderForks: false,
    checkRunName: CHECK_RUN_NAME,
    credentialRejection: () => watch.rejection(),
  });
  cleanups.push(
    () => queue.close(),
    () => app.close(),
    async () => watch.stop(),
  );
  const logs = () =>
    lines.map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string });
  return { app, watch, logs };
}

async function readyz(app: FastifyInstance) {
  const res = await app.inject({ method: 'GET', url: '/readyz' });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>(), raw: res.body };
}

/** Polls until `probe` holds; a bound on liveness, not on speed. */
async function until(probe: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const errorLines = (served: Served) =>
  served.logs().filter((l) => l.msg === 'GitHub rejected the credentials');

/** A client of the fixture's emulator with other App credentials. */
function appClient(fixture: Fixture, appId: string, privateKey: string): GitHubClient {
  return createGitHubClient({
    apiUrl: fixture.emulator.apiUrl,
    auth: { kind: 'app', appId, privateKey },
    ...FAST,
  });
}

describe('readiness of fluxlens serve and the GitHub credentials', () => {
  it('is ready when GitHub accepts the App credentials', async () => {
    const fixture = await fixtures.app();
    fixture.emulator.expect('GET', '/app');
    const served = serve(fixture.client);
    await served.watch.firstCheck;

    const ready = await readyz(served.app);

    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ ok: true, checks: { queue: true, github: true } });
    expect(served.logs()).toContainEqual(
      expect.objectContaining({ msg: 'GitHub accepted the credentials', login: APP_LOGIN }),
    );
  });

  it.each([
    ['a private key GitHub does not know', () => [String(4242), createTestAppKey().privateKey]],
    ['a wrong App id', () => ['4243', testAppKey().privateKey]],
  ])(
    'answers 503 with the reason for %s, logs it once and never shows the key',
    async (_case, credentials) => {
      const fixture = await fixtures.app();
      fixture.emulator.allow('GET', '/app');
      const [appId = '', privateKey = ''] = credentials();
      const served = serve(appClient(fixture, appId, privateKey), 5);

      await until(() => fixture.emulator.requests('GET', '/app').length >= 3, 'three checks');
      const notReady = await readyz(served.app);

      expect(notReady.status).toBe(503);
      expect(notReady.body).toMatchObject({ ok: false, checks: { queue: true, github: false } });
      expect(notReady.body['reason']).toMatch(
        new RegExp(`GitHub rejected the App ${appId} and its private key \\(.*401`),
      );
      expect(errorLines(served)).toHaveLength(1);
      const keyLines = privateKey.split('\n').filter((line) => line.length > 20);
      for (const line of keyLines) {
        expect(notReady.raw).not.toContain(line);
        expect(
          served
            .logs()
            .map((l) => JSON.stringify(l))
            .join('\n'),
        ).not.toContain(line);
      }
    },
  );

  it('answers 503 for a token GitHub refuses, without the token', async () => {
    const wrong = 'ghp_wrongToken0123456789abcdefghijklmn';
    const fixture = await fixtures.token({ token: wrong });
    fixture.emulator.expect('GET', '/user');
    const served = serve(fixture.client);
    await served.watch.firstCheck;

    const notReady = await readyz(served.app);

    expect(notReady.status).toBe(503);
    expect(notReady.body['reason']).toMatch(/^GitHub rejected the token/);
    expect(notReady.raw).not.toContain(wrong);
    expect(notReady.raw).not.toContain(USER_TOKEN);
  });

  it('stays ready while GitHub cannot be asked (5xx), and says so in a warning', async () => {
    const fixture = await fixtures.app();
    // The client's own retries (three) see the same fault.
    fixture.emulator.fail('GET', '/app', 'bad-gateway', 4);
    const served = serve(fixture.client);
    await served.watch.firstCheck;

    const ready = await readyz(served.app);

    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ ok: true, checks: { queue: true, github: true } });
    expect(errorLines(served)).toEqual([]);
    expect(served.logs().map((l) => l.msg)).toContain(
      'could not ask GitHub whether it accepts the credentials',
    );
  });

  it('turns ready again once GitHub accepts the credentials it refused', async () => {
    const fixture = await fixtures.app();
    fixture.emulator.fail('GET', '/app', { status: 401, message: 'Bad credentials' }, 1);
    fixture.emulator.allow('GET', '/app');
    const served = serve(fixture.client, 5);
    await served.watch.firstCheck;
    expect((await readyz(served.app)).status).toBe(503);

    await until(async () => (await readyz(served.app)).status === 200, 'readiness');

    expect(errorLines(served)).toHaveLength(1);
    expect(served.logs().map((l) => l.msg)).toContain('GitHub accepted the credentials');
  });
});
