import { afterEach, describe, expect, it } from 'vitest';
import { signReportUrl } from '../../../src/report-link.js';
import {
  API_TOKEN,
  NOW,
  SIGNING_KEY,
  type TestServer,
  metricValue,
  testServer,
} from './support/test-server.js';

const PULL = { owner: 'flux-org', repo: 'fleet', pullNumber: 7 };
const PUBLIC_URL = 'https://fluxlens.example.com/';
const inAnHour = new Date(NOW.getTime() + 3600_000);

let server: TestServer | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

async function start(): Promise<TestServer> {
  server = testServer({
    apiToken: API_TOKEN,
    reportSigningKey: SIGNING_KEY,
    renderReportHtml: (json) => `<!doctype html><p>${JSON.parse(json).verdict}</p>`,
  });
  await server.results.put(PULL, 'a'.repeat(40), '{"verdict":"danger"}');
  return server;
}

/** The path and query of a signed URL, as a request to the app. */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

describe('GET /reports/:owner/:repo/pulls/:number', () => {
  it('signs a link under the public URL that expires at the given second', () => {
    const url = signReportUrl(PUBLIC_URL, SIGNING_KEY, PULL, inAnHour);
    expect(url).toMatch(
      /^https:\/\/fluxlens\.example\.com\/reports\/flux-org\/fleet\/pulls\/7\?expires=1714568400&sig=[0-9a-f]{64}$/,
    );
  });

  it('serves the HTML report for a valid signed link, with security headers', async () => {
    const { app } = await start();
    const url = signReportUrl(PUBLIC_URL, SIGNING_KEY, PULL, inAnHour);
    const res = await app.inject({ method: 'GET', url: pathOf(url) });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('<!doctype html><p>danger</p>');
    expect(res.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': expect.stringContaining("default-src 'none'"),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'private',
    });
  });

  it('serves the report for the API token', async () => {
    const { app } = await start();
    const res = await app.inject({
      method: 'GET',
      url: '/reports/flux-org/fleet/pulls/7',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses an expired link with 403', async () => {
    const { app } = await start();
    const url = signReportUrl(PUBLIC_URL, SIGNING_KEY, PULL, new Date(NOW.getTime() - 1000));
    const res = await app.inject({ method: 'GET', url: pathOf(url) });
    expect(res.statusCode).toBe(403);
    const sample = 'fluxlens_http_rejections_total{reason="bad-report-signature"}';
    expect(await metricValue(app, sample)).toBe(1);
  });

  it.each([
    ['another pull request', (path: string) => path.replace('/pulls/7', '/pulls/8')],
    ['a later expiry', (path: string) => path.replace(/expires=\d+/, 'expires=1914568400')],
    [
      'a changed signature',
      (path: string) => path.replace(/sig=[0-9a-f]/, (m) => (m.endsWith('0') ? 'sig=1' : 'sig=0')),
    ],
    ['a truncated signature', (path: string) => path.slice(0, -2)],
    ['no signature', (path: string) => path.replace(/&sig=.*$/, '')],
  ])('refuses a link tampered to %s with 403', async (_name, tamper) => {
    const { app, results } = await start();
    await results.put({ ...PULL, pullNumber: 8 }, 'b'.repeat(40), '{"verdict":"safe"}');
    const url = signReportUrl(PUBLIC_URL, SIGNING_KEY, PULL, inAnHour);
    const res = await app.inject({ method: 'GET', url: tamper(pathOf(url)) });
    expect(res.statusCode).toBe(403);
    expect(res.body).not.toContain('<p>');
  });

  it('refuses a link signed with another key', async () => {
    const { app } = await start();
    const url = signReportUrl(PUBLIC_URL, 'some-other-key', PULL, inAnHour);
    expect((await app.inject({ method: 'GET', url: pathOf(url) })).statusCode).toBe(403);
  });

  it('asks for credentials when given none', async () => {
    const { app } = await start();
    const res = await app.inject({ method: 'GET', url: '/reports/flux-org/fleet/pulls/7' });
    expect(res.statusCode).toBe(401);
  });

  it('answers 404 for a pull request without a result', async () => {
    const { app } = await start();
    const url = signReportUrl(PUBLIC_URL, SIGNING_KEY, { ...PULL, pullNumber: 9 }, inAnHour);
    expect((await app.inject({ method: 'GET', url: pathOf(url) })).statusCode).toBe(404);
  });

  it('never writes a link signature to the log', async () => {
    const { app, logs } = await start();
    const url = signReportUrl(PUBLIC_URL, SIGNING_KEY, PULL, inAnHour);
    await app.inject({ method: 'GET', url: pathOf(url) });
    const sig = new URL(url).searchParams.get('sig') ?? 'missing';
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('')).not.toContain(sig);
  });

  it('does not exist without a report renderer', async () => {
    server = testServer({ apiToken: API_TOKEN, reportSigningKey: SIGNING_KEY });
    const url = signReportUrl(PUBLIC_URL, SIGNING_KEY, PULL, inAnHour);
    expect((await server.app.inject({ method: 'GET', url: pathOf(url) })).statusCode).toBe(404);
  });
});
