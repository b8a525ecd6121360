/**
 * Requests nobody should trust, sent to a running `fluxlens serve`: unsigned and wrongly
 * signed webhooks, a replayed delivery, a body past GitHub's 25 MB, an event fluxlens does
 * not handle, `/fluxlens render` from a user without write access, the API with a wrong
 * token, report links with a bad or expired signature. Each gets its status, is counted on
 * /metrics, and none reaches GitHub. Then floods, inline and on Redis: `/fluxlens render`
 * comments and re-render calls for one PR are coalesced into its waiting job, calls past
 * the limit get 429, and another PR's review goes first.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportPath, signReportUrl } from '../../src/report-link.js';
import { example, set } from '../unit/server/support/github-examples.js';
import { faultFleet } from '../support/fault-fleet.js';
import { counter, metricsOf, ourComments, reviewed } from '../support/fault-checks.js';
import {
  drained,
  enqueueOutcomes,
  floodApi,
  reactionsPosted,
  renderCommand,
  startedPulls,
} from '../support/floods.js';
import { wrappedKustomizeTools } from '../support/tools.js';
import { expectNoSecretLeaks } from '../support/secret-scan.js';
import {
  eventually,
  INSTALLATION,
  OWNER,
  PULL,
  pullRequestPayload,
  REPO,
  sleep,
  startServiceWorld,
  type ServiceProcess,
  type ServiceWorld,
} from '../support/service.js';

const fleet = faultFleet();
const signingKey = randomBytes(24).toString('hex');
const pull = { owner: OWNER, repo: REPO, pullNumber: PULL };
const DAY_MS = 24 * 60 * 60 * 1000;

const rejected = (reason: string) => `fluxlens_http_rejections_total{reason="${reason}"}`;
const delivered = (event: string, outcome: string) =>
  `fluxlens_webhook_deliveries_total{event="${event}",outcome="${outcome}"}`;

/**
 * A delivery that says it is 25 MB and a bit. The server answers from the length alone and
 * closes the connection, so the body is only begun: a client still writing the rest gets
 * EPIPE instead of the answer, which is a race of the test, not of the server.
 */
function postPastTheLimit(url: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(25 * 1024 * 1024 + 1024),
        'x-github-event': 'pull_request',
        'x-github-delivery': 'too-big',
        'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
      req.destroy();
    });
    req.on('error', reject);
    req.write(`{"pad":"${'x'.repeat(64 * 1024)}`);
  });
}

describe('hostile requests to fluxlens serve', () => {
  let world: ServiceWorld;
  let server: ServiceProcess;
  let reviewedHead: string;
  let writesAfterReview: number;
  const writes = () => world.emulator.requests().filter((r) => r.method !== 'GET');

  beforeAll(async () => {
    world = await startServiceWorld(fleet.files, { redis: false });
    server = await world.start('serve', {
      FLUXLENS_PUBLIC_URL: 'http://127.0.0.1',
      FLUXLENS_REPORT_SIGNING_KEY: signingKey,
    });
    // One review first, so a result and its report exist to be asked for.
    reviewedHead = world.pushHead(0);
    const response = await world.deliver(
      'pull_request',
      pullRequestPayload('opened', reviewedHead),
      { deliveryId: 'first-delivery' },
    );
    expect(response.status).toBe(202);
    await reviewed(world, reviewedHead);
    await eventually(() => ourComments(world, PULL)[0], 'the sticky comment');
    writesAfterReview = writes().length;
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  /** What each request should get, and the counter it should move by one. */
  type Answer = Promise<{ status: number }>;
  const webhookCases: Array<[string, () => Answer, number, string]> = [
    [
      'an unsigned delivery',
      () =>
        world.deliver('pull_request', pullRequestPayload('opened', reviewedHead), {
          signature: null,
        }),
      401,
      rejected('bad-signature'),
    ],
    [
      'a delivery signed with another secret',
      () =>
        world.deliver('pull_request', pullRequestPayload('opened', reviewedHead), {
          signature: `sha256=${'0'.repeat(64)}`,
        }),
      401,
      rejected('bad-signature'),
    ],
    [
      'a replay of a delivery already handled',
      () =>
        world.deliver('pull_request', pullRequestPayload('opened', reviewedHead), {
          deliveryId: 'first-delivery',
        }),
      200,
      delivered('pull_request', 'redelivery'),
    ],
    [
      'a body past 25 MB',
      () => postPastTheLimit(`${world.serverUrl}/webhooks/github`),
      413,
      rejected('oversized'),
    ],
    [
      'an event fluxlens does not handle',
      () => {
        const star = example('star', 'created');
        set(star, 'installation', { id: INSTALLATION });
        return world.deliver('star', star);
      },
      202,
      delivered('other', 'ignored'),
    ],
    [
      '/fluxlens render from a user without write access',
      () => {
        const comment = example('issue_comment', 'created');
        set(comment, 'issue.number', PULL);
        set(comment, 'issue.pull_request', { url: 'x' });
        set(comment, 'comment.body', '/fluxlens render');
        set(comment, 'comment.author_association', 'CONTRIBUTOR');
        set(comment, 'repository', pullRequestPayload('opened', reviewedHead)['repository']);
        set(comment, 'installation', { id: INSTALLATION });
        return world.deliver('issue_comment', comment);
      },
      202,
      delivered('issue_comment', 'ignored'),
    ],
  ];

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const report = (query: string) => fetch(`${world.serverUrl}${reportPath(pull)}${query}`);
  const signed = (expiresAt: Date, forPull = pull) =>
    new URL(signReportUrl('http://127.0.0.1', signingKey, forPull, expiresAt)).search;

  const otherCases: Array<[string, () => Answer, number, string]> = [
    [
      'the API with a wrong token',
      () =>
        fetch(`${world.serverUrl}/api/v1/renders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer('not-the-api-token-at-all') },
          body: JSON.stringify({ owner: OWNER, repo: REPO, pull_number: PULL }),
        }),
      401,
      rejected('bad-token'),
    ],
    [
      'the API without a token',
      () => fetch(`${world.serverUrl}/api/v1/repos/${OWNER}/${REPO}/pulls/${PULL}`),
      401,
      rejected('bad-token'),
    ],
    [
      'a report link with a forged signature',
      () => report(`?expires=${Math.floor((Date.now() + DAY_MS) / 1000)}&sig=${'a'.repeat(64)}`),
      403,
      rejected('bad-report-signature'),
    ],
    [
      'a report link that has expired',
      () => report(signed(new Date(Date.now() - DAY_MS))),
      403,
      rejected('bad-report-signature'),
    ],
    [
      "a report link signed for another PR's report",
      () => report(signed(new Date(Date.now() + DAY_MS), { ...pull, pullNumber: PULL + 1 })),
      403,
      rejected('bad-report-signature'),
    ],
  ];

  it.each([...webhookCases, ...otherCases])(
    'answers %s with its status and counts it',
    async (_name, send, status, series) => {
      const before = counter(await metricsOf(world.serverUrl), series);
      const response = await send();
      expect(response.status).toBe(status);
      expect(counter(await metricsOf(world.serverUrl), series)).toBe(before + 1);
    },
    60_000,
  );

  it('serves the report on the link it signed itself, and wrote nothing to GitHub since', async () => {
    const link = world.emulator.state().checkRuns.find((r) => r.head_sha === reviewedHead);
    expect(link?.details_url).toMatch(/\/reports\/home-ops\/fleet\/pulls\/7\?expires=\d+&sig=/);
    const query = new URL(link?.details_url ?? 'http://x').search;
    const page = await report(query);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('app-config');
    // Give anything a hostile request might have started the time to reach GitHub.
    await sleep(1500);
    expect(writes().slice(writesAfterReview)).toEqual([]);
    expect(ourComments(world, PULL)).toHaveLength(1);
  });

  it('keeps every credential, the signing key and the Secret value out of what it wrote', async () => {
    await expectNoSecretLeaks({
      world,
      processes: [server],
      secrets: { 'the Secret value': fleet.secretValue, 'the report signing key': signingKey },
    });
  });
});

/** Reviews that take seconds, so a flood lands while the PR's first job still runs. */
const slowBuilds = () =>
  wrappedKustomizeTools(
    (kustomize) => `#!/bin/sh
if [ "$1" = build ]; then sleep 2; fi
exec '${kustomize}' "$@"
`,
  );

/**
 * What a review costs on GitHub (token, pull, check run, comment, reaction) is a handful
 * of requests; a flood's total must stay a few reviews' worth, whatever its size.
 */
const FLOOD_GITHUB_REQUESTS = 40;

describe.each([
  ['inline', false],
  ['Redis', true],
])('floods on fluxlens serve (%s)', (_mode, redis) => {
  let world: ServiceWorld;
  let server: ServiceProcess;
  /** The process that runs reviews: serve itself inline, the worker with Redis. */
  let reviewer: ServiceProcess;
  const tools = slowBuilds();
  const other = { owner: OWNER, repo: REPO, installation: INSTALLATION, headRef: 'feature' };
  const accepted = (counts: Record<string, number>) =>
    (counts['queued'] ?? 0) + (counts['replaced'] ?? 0);

  beforeAll(async () => {
    world = await startServiceWorld(fleet.files, { redis });
    const env = {
      FLUXLENS_WORKER_CONCURRENCY: '1',
      FLUXLENS_API_RENDERS_PER_MINUTE: '30',
      // Past the flood, so it shows coalescing; the unit tests cover the command limit.
      FLUXLENS_COMMANDS_PER_MINUTE: '100',
      FLUXLENS_TOOLS_DIR: tools.dir,
      FLUXLENS_KUSTOMIZE_SERVER: 'off',
    };
    server = await world.start('serve', env);
    reviewer = redis ? await world.start('worker', env) : server;
    const head = world.pushHead(0);
    expect((await world.deliver('pull_request', pullRequestPayload('opened', head))).status).toBe(
      202,
    );
    await reviewed(world, head);
  }, 180_000);

  afterAll(async () => {
    await world.close();
    tools.remove();
  });

  it("coalesces 50 /fluxlens render comments on one PR into one running and one waiting job, and reviews another PR before the flooded PR's second job", async () => {
    const since = world.emulator.requests().length;
    const startsBefore = startedPulls(reviewer).length;
    const first = await world.deliver('issue_comment', renderCommand(world));
    expect(first.status).toBe(202);
    await eventually(
      () => (startedPulls(reviewer).length > startsBefore ? true : undefined),
      'the first job to start',
    );
    const flood = await Promise.all(
      Array.from({ length: 49 }, () => world.deliver('issue_comment', renderCommand(world))),
    );
    expect(flood.map((res) => res.status)).toEqual(flood.map(() => 202));
    const otherHead = world.pushHead(1, PULL + 1);
    const opened = pullRequestPayload('opened', otherHead, {
      ...other,
      pull: PULL + 1,
      baseRef: 'main',
    });
    expect((await world.deliver('pull_request', opened)).status).toBe(202);
    await reviewed(world, otherHead);
    expect(await drained(world, 90_000)).toBeDefined();

    const outcomes = enqueueOutcomes(server, 'comment-command');
    expect(accepted(outcomes)).toBeLessThanOrEqual(2);
    expect(outcomes['coalesced']).toBeGreaterThanOrEqual(48);
    expect(accepted(outcomes) + (outcomes['coalesced'] ?? 0)).toBe(50);
    const reactions = reactionsPosted(world, since);
    expect(reactions).toBeGreaterThanOrEqual(1);
    expect(reactions).toBeLessThanOrEqual(accepted(outcomes));
    expect(startedPulls(reviewer).slice(startsBefore)).toEqual([PULL, PULL + 1, PULL]);
    expect(world.emulator.requests().length - since).toBeLessThanOrEqual(FLOOD_GITHUB_REQUESTS);
  }, 180_000);

  it('answers re-render calls past the limit with 429 and Retry-After, and coalesces the rest', async () => {
    const since = world.emulator.requests().length;
    const before = enqueueOutcomes(server, 'api');
    const answers: Response[] = [];
    await floodApi(world, 60, 0, PULL, (res) => answers.push(res));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 202)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);
    for (const refused of answers.filter((res) => res.status === 429)) {
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
    }
    expect(await drained(world, 90_000)).toBeDefined();
    const outcomes = enqueueOutcomes(server, 'api');
    const made = accepted(outcomes) - accepted(before);
    expect(made).toBeGreaterThanOrEqual(1);
    expect(made).toBeLessThanOrEqual(2);
    expect((outcomes['coalesced'] ?? 0) - (before['coalesced'] ?? 0)).toBe(30 - made);
    expect(reactionsPosted(world, since)).toBe(0);
    expect(world.emulator.requests().length - since).toBeLessThanOrEqual(FLOOD_GITHUB_REQUESTS);
  }, 180_000);
});
