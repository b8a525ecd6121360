/**
 * Requests nobody should trust, sent to a running `fluxlens serve`, inline and on Redis:
 * unsigned and wrongly signed webhooks, a replayed delivery, bodies past their event's
 * limit, stalled or never sent, an event fluxlens does not handle, owner and repository
 * names that are not GitHub's, a payload whose full_name names another repository,
 * `/fluxlens render` where it is not a command (code, quotes, comments, bots, fluxlens
 * itself, an edit), the API with a wrong token, report links with a bad or expired
 * signature. Each gets its status, is counted on /metrics, and none reaches GitHub. Then
 * floods: `/fluxlens render` comments and re-render calls for one PR are coalesced into its
 * waiting job, calls past the limit get 429, and another PR's review goes first.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportPath, signReportUrl } from '../../src/report-link.js';
import { type Payload, example, set } from '../unit/server/support/github-examples.js';
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

const MIB = 1024 * 1024;
/** The GitHub App's login as the world's emulator names it. */
const OWN_LOGIN = 'fluxlens-test[bot]';
/** The names the service was sent from outside; none is GitHub's. */
const HOSTILE_NAMES: Array<[string, string]> = [
  ['..', '..'],
  ['.', REPO],
  [OWNER, '.'],
  ['a/b', REPO],
  [OWNER, 'a/b'],
  ['%2e%2e', REPO],
  [OWNER, '%2e%2e'],
  ['hôme-ops', REPO],
  [OWNER, 'flëet'],
  ['../../x', REPO],
  [OWNER, '../../x'],
];

/**
 * A pull_request delivery that says it is 24 MiB, as the bad bodies were. The
 * server answers from the length alone and closes the connection, so the body is only
 * begun: a client still writing the rest gets EPIPE instead of the answer, which is a race
 * of the test, not of the server.
 */
function postPastTheLimit(url: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(24 * MIB),
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

/**
 * Headers of a webhook and `sent` bytes of its body on a raw connection, then nothing: the
 * status the server answered with once it closed the connection ('none' without one).
 */
async function postAndStall(
  url: string,
  event: string,
  declared: number,
  sent: number,
): Promise<{ status: number }> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  const closed = once(socket, 'close');
  socket.write(
    [
      'POST /webhooks/github HTTP/1.1',
      'host: 127.0.0.1',
      'content-type: application/json',
      `content-length: ${declared}`,
      `x-github-event: ${event}`,
      `x-github-delivery: stall-${randomBytes(4).toString('hex')}`,
      `x-hub-signature-256: sha256=${'0'.repeat(64)}`,
      '',
      '',
    ].join('\r\n'),
  );
  if (sent > 0) socket.write(`{"pad":"${'x'.repeat(sent - 8)}`);
  await closed;
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0) };
}

/** A pull_request delivery for `owner/repo` (its full_name too, unless given). */
function pullRequestIn(head: string, owner: string, repo: string, fullName = `${owner}/${repo}`) {
  const payload = pullRequestPayload('opened', head);
  set(payload, 'repository.name', repo);
  set(payload, 'repository.full_name', fullName);
  set(payload, 'repository.owner.login', owner);
  return payload;
}

describe.each([
  ['inline', false],
  ['on Redis', true],
])('hostile requests to fluxlens serve %s', (_mode, redis) => {
  let world: ServiceWorld;
  let processes: ServiceProcess[];
  let reviewedHead: string;
  let writesAfterReview: number;
  const writes = () => world.emulator.requests().filter((r) => r.method !== 'GET');

  beforeAll(async () => {
    world = await startServiceWorld(fleet.files, { redis });
    // The worker links the report in the check run, so it is told the same URL and key.
    const links = {
      FLUXLENS_PUBLIC_URL: 'http://127.0.0.1',
      FLUXLENS_REPORT_SIGNING_KEY: signingKey,
    };
    const server = await world.start('serve', {
      ...links,
      // Another case than the repository's own: the allowlist is matched case-insensitively.
      FLUXLENS_REPOSITORIES: `${OWNER.toUpperCase()}/${REPO.toUpperCase()}`,
      FLUXLENS_WEBHOOK_BODY_TIMEOUT_SECONDS: '2',
      // Even listed as a bot allowed to give commands, fluxlens's own comments never are.
      FLUXLENS_COMMAND_BOTS: OWN_LOGIN,
    });
    processes = [server];
    if (redis) processes.push(await world.start('worker', links));
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
  /** A member's `/fluxlens render` on the PR, changed by `edit`. */
  const commentOn = (head: string, edit: (comment: Payload) => void) => {
    const comment = example('issue_comment', 'created');
    set(comment, 'issue.number', PULL);
    set(comment, 'issue.pull_request', { url: 'x' });
    set(comment, 'comment.body', '/fluxlens render');
    set(comment, 'comment.author_association', 'MEMBER');
    set(comment, 'repository', pullRequestPayload('opened', head)['repository']);
    set(comment, 'installation', { id: INSTALLATION });
    edit(comment);
    return comment;
  };
  const body = (text: string) => (c: Payload) => set(c, 'comment.body', text);
  const quietComments: Array<[string, (comment: Payload) => void]> = [
    [
      'from a user without write access',
      (c) => set(c, 'comment.author_association', 'CONTRIBUTOR'),
    ],
    ['in a fenced code block', body('```\n/fluxlens render\n```')],
    ['in a tilde code block', body('~~~\n/fluxlens render\n~~~')],
    ['in an indented code block', body('see:\n\n    /fluxlens render')],
    ['in a block quote', body('> /fluxlens render')],
    ['in an HTML comment', body('<!--\n/fluxlens render\n-->')],
    ['in an edited comment', (c) => set(c, 'action', 'edited')],
    ['from another App', (c) => set(c, 'comment.user', { login: 'other-app[bot]', type: 'Bot' })],
    ['from fluxlens itself', (c) => set(c, 'comment.user', { login: OWN_LOGIN, type: 'Bot' })],
  ];

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
      'a 24 MiB pull_request body, from its declared length',
      () => postPastTheLimit(`${world.serverUrl}/webhooks/github`),
      413,
      rejected('oversized'),
    ],
    [
      'a body declared at 25 MiB that never comes',
      () => postAndStall(world.serverUrl, 'pull_request', 25 * MIB, 0),
      413,
      rejected('oversized'),
    ],
    [
      'a body within its limit that stalls, after the body timeout',
      () => postAndStall(world.serverUrl, 'pull_request', 200 * 1024, 100 * 1024),
      408,
      rejected('slow-body'),
    ],
    [
      'a wrongly signed body that is not JSON either',
      () =>
        fetch(`${world.serverUrl}/webhooks/github`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-github-event': 'pull_request',
            'x-github-delivery': 'not-json',
            'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
          },
          body: '{"action": "opened",',
        }),
      401,
      rejected('bad-signature'),
    ],
    [
      'an event fluxlens does not handle, whose body never comes',
      () => postAndStall(world.serverUrl, 'star', 20 * MIB, 0),
      202,
      delivered('other', 'ignored'),
    ],
    [
      'a payload whose full_name names the allowed repository and owner and name another',
      () =>
        world.deliver(
          'pull_request',
          pullRequestIn(reviewedHead, 'attacker', REPO, `${OWNER}/${REPO}`),
        ),
      400,
      rejected('bad-request'),
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
    ...quietComments.map(([name, edit]): (typeof webhookCases)[number] => [
      `/fluxlens render ${name}`,
      () => world.deliver('issue_comment', commentOn(reviewedHead, edit)),
      202,
      delivered('issue_comment', 'ignored'),
    ]),
    ...HOSTILE_NAMES.map(([owner, repo]): (typeof webhookCases)[number] => [
      `a webhook for owner ${JSON.stringify(owner)} and repository ${JSON.stringify(repo)}`,
      () => world.deliver('pull_request', pullRequestIn(reviewedHead, owner, repo)),
      400,
      rejected('bad-request'),
    ]),
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
    [
      'the reviews page without a token or a link',
      () => fetch(`${world.serverUrl}/reports`),
      401,
      rejected('bad-token'),
    ],
    [
      "the reviews page on a PR report's link",
      () => fetch(`${world.serverUrl}/reports${signed(new Date(Date.now() + DAY_MS))}`),
      403,
      rejected('bad-report-signature'),
    ],
  ];

  const renderRequest = (owner: string, repo: string) =>
    fetch(`${world.serverUrl}/api/v1/renders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(world.secrets.apiToken) },
      body: JSON.stringify({ owner, repo, pull_number: PULL }),
    });

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

  it.each(HOSTILE_NAMES)(
    'refuses a render request for owner %j and repository %j',
    async (owner, repo) => {
      const response = await renderRequest(owner, repo);
      expect(response.status).toBe(400);
    },
  );

  it('never calls GitHub for owner .. and repository .., from a webhook or the API', async () => {
    const before = world.emulator.requests().length;
    const hook = await world.deliver('pull_request', pullRequestIn(reviewedHead, '..', '..'));
    const api = await renderRequest('..', '..');
    expect([hook.status, api.status]).toEqual([400, 400]);
    // Give anything the requests might have started the time to reach GitHub.
    await sleep(1500);
    expect(world.emulator.requests().slice(before)).toEqual([]);
  });

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

  it('lists the review on the reviews page for the API token, linked to its report', async () => {
    const page = await fetch(`${world.serverUrl}/reports`, {
      headers: bearer(world.secrets.apiToken),
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`>${OWNER}/${REPO}</a>`.toLowerCase());
    const href = /<a class="report" href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
    expect(href).toMatch(new RegExp(`^${reportPath(pull).toLowerCase()}\\?expires=\\d+&sig=`));
    expect((await fetch(`${world.serverUrl}${href ?? ''}`)).status).toBe(200);
  });

  it('keeps every credential, the signing key and the Secret value out of what it wrote', async () => {
    await expectNoSecretLeaks({
      world,
      processes,
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
