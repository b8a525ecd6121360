/**
 * Requests nobody should trust, sent to a running `fluxlens serve`: unsigned and wrongly
 * signed webhooks, a replayed delivery, a body past GitHub's 25 MB, an event fluxlens does
 * not handle, `/fluxlens render` from a user without write access, the API with a wrong
 * token, report links with a bad or expired signature. Each gets its status, is counted on
 * /metrics, and none reaches GitHub.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportPath, signReportUrl } from '../../src/report-link.js';
import { example, set } from '../unit/server/support/github-examples.js';
import { faultFleet } from '../support/fault-fleet.js';
import { counter, metricsOf, ourComments, reviewed } from '../support/fault-checks.js';
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
