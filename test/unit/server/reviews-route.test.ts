/**
 * GET /reports, the reviews page: the same access rule as a PR's HTML report (the API
 * token, or a signed link to the page that has not expired), filters checked at the door,
 * and report links on the page signed to expire with the page's own link.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signReportUrl, signReviewsUrl } from '../../../src/report-link.js';
import type { ReviewsPageData } from '../../../src/server/types.js';
import {
  API_TOKEN,
  NOW,
  SIGNING_KEY,
  type TestServer,
  metricValue,
  testServer,
} from './support/test-server.js';

const FLEET = { owner: 'flux-org', repo: 'fleet', pullNumber: 7 };
const APPS = { owner: 'flux-org', repo: 'apps', pullNumber: 3 };
const inAnHour = new Date(NOW.getTime() + 3600_000);

let server: TestServer | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

/** A server whose page renderer shows what it was given, as JSON. */
async function start(over: Parameters<typeof testServer>[0] = {}): Promise<TestServer> {
  server = testServer({
    apiToken: API_TOKEN,
    reportSigningKey: SIGNING_KEY,
    renderReviewsHtml: (page) => JSON.stringify(page),
    ...over,
  });
  await server.results.put(FLEET, 'a'.repeat(40), '{"verdict":"danger"}');
  await server.results.put(APPS, 'b'.repeat(40), '{"verdict":"none"}');
  return server;
}

const pathOf = (url: string) => {
  const parsed = new URL(url, 'https://fluxlens.example.com');
  return `${parsed.pathname}${parsed.search}`;
};

const pageOf = (body: string) => JSON.parse(body) as ReviewsPageData;

describe('GET /reports', () => {
  it('asks for credentials when given none', async () => {
    const { app } = await start();
    const res = await app.inject({ method: 'GET', url: '/reports' });
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain('fleet');
  });

  it('refuses a wrong API token with 401', async () => {
    const { app } = await start();
    const res = await app.inject({
      method: 'GET',
      url: '/reports',
      headers: { authorization: 'Bearer not-the-token' },
    });
    expect(res.statusCode).toBe(401);
  });

  it('lists the latest reviews, newest first, for the API token, with security headers', async () => {
    const { app } = await start();
    const res = await app.inject({
      method: 'GET',
      url: '/reports',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': expect.stringContaining("default-src 'none'"),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    const page = pageOf(res.body);
    expect(page.reviews.map((r) => [r.pull.repo, r.headSha[0], r.resultJson])).toEqual([
      ['apps', 'b', '{"verdict":"none"}'],
      ['fleet', 'a', '{"verdict":"danger"}'],
    ]);
    // Opened with the token, the page's report links are signed for an hour.
    expect(page.reviews[1]?.reportUrl).toBe(signReportUrl('', SIGNING_KEY, FLEET, inAnHour));
    expect(page.carry).toEqual({});
  });

  it('offers the token holder a signed link to the page, valid for a day, that opens it', async () => {
    const { app } = await start({ publicUrl: 'https://fluxlens.example.com/' });
    const res = await app.inject({
      method: 'GET',
      url: '/reports',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    const { shareUrl = '' } = pageOf(res.body);
    const inADay = new Date(NOW.getTime() + 24 * 3600_000);
    expect(shareUrl).toBe(signReviewsUrl('https://fluxlens.example.com/', SIGNING_KEY, inADay));
    const shared = await app.inject({ method: 'GET', url: pathOf(shareUrl) });
    expect(shared.statusCode).toBe(200);
    expect(pageOf(shared.body).shareUrl).toBeUndefined();
  });

  it('serves a valid signed link, whose report links expire with it and whose filters keep it', async () => {
    const { app } = await start();
    const url = signReviewsUrl('https://fluxlens.example.com/', SIGNING_KEY, inAnHour);
    expect(url).toMatch(
      /^https:\/\/fluxlens\.example\.com\/reports\?expires=1714568400&sig=[0-9a-f]{64}$/,
    );
    const res = await app.inject({ method: 'GET', url: pathOf(url) });
    expect(res.statusCode).toBe(200);
    const page = pageOf(res.body);
    expect(page.carry).toEqual({
      expires: '1714568400',
      sig: new URL(url).searchParams.get('sig'),
    });
    expect(page.reviews.map((r) => r.reportUrl)).toEqual([
      signReportUrl('', SIGNING_KEY, APPS, inAnHour),
      signReportUrl('', SIGNING_KEY, FLEET, inAnHour),
    ]);
  });

  it.each([
    ['an expired link', signReviewsUrl('', SIGNING_KEY, new Date(NOW.getTime() - 1000))],
    [
      'a later expiry',
      signReviewsUrl('', SIGNING_KEY, inAnHour).replace(/expires=\d+/, 'expires=1914568400'),
    ],
    ['a link signed with another key', signReviewsUrl('', 'some-other-key', inAnHour)],
    [
      "a PR report's link",
      signReportUrl('', SIGNING_KEY, FLEET, inAnHour).replace(/^.*\?/, '/reports?'),
    ],
    ['a truncated signature', signReviewsUrl('', SIGNING_KEY, inAnHour).slice(0, -2)],
    ['no signature', signReviewsUrl('', SIGNING_KEY, inAnHour).replace(/&sig=.*$/, '')],
  ])('refuses %s with 403', async (_name, url) => {
    const { app } = await start();
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(403);
    expect(res.body).not.toContain('fleet');
    const sample = 'fluxlens_http_rejections_total{reason="bad-report-signature"}';
    expect(await metricValue(app, sample)).toBe(1);
  });

  it('passes the repository and verdict filters on, and narrows the listing to the repository', async () => {
    const { app, results } = await start();
    const res = await app.inject({
      method: 'GET',
      url: '/reports?repository=Flux-Org/Fleet&verdict=danger',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    const page = pageOf(res.body);
    expect(page).toMatchObject({ repository: 'Flux-Org/Fleet', verdict: 'danger' });
    expect(page.reviews.map((r) => r.pull.repo)).toEqual(['fleet']);
    expect(results.listed.at(-1)).toEqual({
      limit: 100,
      repository: { owner: 'Flux-Org', repo: 'Fleet' },
    });
  });

  it('reads empty filter fields (a submitted form) as no filter', async () => {
    const { app } = await start();
    const res = await app.inject({
      method: 'GET',
      url: '/reports?repository=&verdict=',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(pageOf(res.body).reviews).toHaveLength(2);
  });

  it.each([
    ['a repository that is not owner/repo', 'repository=fleet'],
    ['a path in the repository', 'repository=a/b/c'],
    ['an unknown verdict', 'verdict=scary'],
  ])('refuses %s with 400', async (_name, query) => {
    const { app } = await start();
    const res = await app.inject({
      method: 'GET',
      url: `/reports?${query}`,
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(res.statusCode).toBe(400);
  });

  it('does not exist without a page renderer', async () => {
    server = testServer({ apiToken: API_TOKEN, reportSigningKey: SIGNING_KEY });
    const res = await server.app.inject({
      method: 'GET',
      url: '/reports',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(res.statusCode).toBe(404);
  });
});
