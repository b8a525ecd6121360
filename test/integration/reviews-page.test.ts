/**
 * The reviews page in headless Chromium, served by the real server from a real result
 * store: opened with a signed link, it lists reviews newest first, filters by verdict
 * through its form and by repository through its links (both keep the signature), opens
 * each report through its signed link, and shows hostile strings as text.
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { createInlineQueue, type InlineQueue } from '../../src/queue/index.js';
import { parseAnalysisResult, renderHtml, renderReviewsPage } from '../../src/report/index.js';
import { signReviewsUrl } from '../../src/report-link.js';
import {
  NOW,
  SIGNING_KEY,
  testServer,
  type TestServer,
} from '../unit/server/support/test-server.js';

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = '<img src=x onerror=alert(1)>';

function result(level: AnalysisResult['verdict']['level'], headline: string, sha: string) {
  const counts = { info: 0, caution: 0, danger: 0 };
  if (level !== 'none') counts[level] = 1;
  const value: AnalysisResult = {
    schemaVersion: 1,
    base: { rev: 'main', sha: '1'.repeat(40) },
    head: { rev: 'pr', sha },
    verdict: { level, headline, routine: false, counts },
    summary: { added: 1, removed: 0, changed: 2, moved: 0, findings: level === 'none' ? 0 : 1 },
    clusters: [],
    changes: [],
    findings: [],
    errors: [],
    timings: {},
  };
  return JSON.stringify(value);
}

const REVIEWS = [
  {
    pull: { owner: 'acme', repo: 'fleet', pullNumber: 12 },
    level: 'danger',
    headline: 'Deletes a PersistentVolumeClaim (data loss)',
  },
  { pull: { owner: 'acme', repo: 'apps', pullNumber: 4 }, level: 'none', headline: HOSTILE },
  {
    pull: { owner: 'acme', repo: 'fleet', pullNumber: 13 },
    level: 'caution',
    headline: 'Moves web to a new major image version',
  },
] as const;

let launched: { browser?: Browser; reason?: string } = {};
let queue: InlineQueue;
let server: TestServer;
let origin = '';
let context: BrowserContext | undefined;
const seen = { dialogs: [] as string[], errors: [] as string[], offsite: [] as string[] };

async function launch(): Promise<{ browser?: Browser; reason?: string }> {
  if (!existsSync(CHROMIUM)) return { reason: `${CHROMIUM} is missing` };
  try {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
    return { browser };
  } catch (error) {
    return { reason: `chromium cannot be launched: ${String(error).split('\n')[0]}` };
  }
}

beforeAll(async () => {
  launched = await launch();
  if (launched.reason) console.warn(`reviews-page: browser tests skipped: ${launched.reason}`);
  queue = createInlineQueue({});
  for (const [i, r] of REVIEWS.entries()) {
    await queue.results.put(
      r.pull,
      String(i + 2).repeat(40),
      result(r.level, r.headline, String(i + 2).repeat(40)),
    );
  }
  server = testServer({
    results: queue.results,
    reportSigningKey: SIGNING_KEY,
    renderReportHtml: (json) => renderHtml(parseAnalysisResult(json)),
    renderReviewsHtml: renderReviewsPage,
  });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await launched.browser?.close();
  await server?.app.close();
  await queue?.close();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
  expect(seen).toEqual({ dialogs: [], errors: [], offsite: [] });
});

async function open(ctx: TestContext): Promise<Page> {
  const browser = launched.browser;
  if (!browser) return ctx.skip(`skipped: ${launched.reason ?? 'no browser'}`);
  context = await browser.newContext();
  context.setDefaultTimeout(5_000);
  const page = await context.newPage();
  page.on('request', (request) => {
    if (!request.url().startsWith(origin)) seen.offsite.push(request.url());
  });
  page.on('dialog', (dialog) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => seen.errors.push(error.message));
  await page.goto(signReviewsUrl(origin, SIGNING_KEY, new Date(NOW.getTime() + 3600_000)));
  return page;
}

const column = (page: Page, n: number) =>
  page.locator(`tbody tr td:nth-child(${n})`).allInnerTexts();

describe('the reviews page in headless Chromium', () => {
  it('lists every review newest first with its verdict, counts, head and time', async (ctx) => {
    const page = await open(ctx);
    expect(await page.locator('h1').innerText()).toBe('Reviews');
    expect(await column(page, 1)).toEqual(['acme/fleet', 'acme/apps', 'acme/fleet']);
    expect(await column(page, 2)).toEqual(['#13', '#4', '#12']);
    expect(await page.locator('tbody .level').allInnerTexts()).toEqual([
      'caution',
      'none',
      'danger',
    ]);
    expect(await page.locator('tbody .headline').allInnerTexts()).toEqual([
      'Moves web to a new major image version',
      HOSTILE,
      'Deletes a PersistentVolumeClaim (data loss)',
    ]);
    expect(await column(page, 4)).toEqual([
      '0 danger, 1 caution, 0 info',
      '0 danger, 0 caution, 0 info',
      '1 danger, 0 caution, 0 info',
    ]);
    expect(await column(page, 5)).toEqual(Array(3).fill('1 added, 2 changed, 0 removed, 0 moved'));
    expect(await column(page, 6)).toEqual(['4'.repeat(12), '3'.repeat(12), '2'.repeat(12)]);
    for (const time of await column(page, 7))
      expect(time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await page.locator('img').count()).toBe(0);
  });

  it('filters by verdict through its form, keeping the signed link', async (ctx) => {
    const page = await open(ctx);
    await page.locator('select[name=verdict]').selectOption('danger');
    await Promise.all([
      page.waitForURL(/verdict=danger/),
      page.locator('button[type=submit]').click(),
    ]);
    const url = new URL(page.url());
    expect(url.searchParams.get('sig')).toMatch(/^[0-9a-f]{64}$/);
    expect(await column(page, 2)).toEqual(['#12']);
    expect(await page.locator('.lead').innerText()).toBe(
      '1 of the 3 most recently reviewed pull requests, verdict danger, newest first.',
    );
  });

  it('filters by repository through its links', async (ctx) => {
    const page = await open(ctx);
    await Promise.all([
      page.waitForURL(/repository=acme%2Fapps/),
      page.locator('a.repository', { hasText: 'acme/apps' }).click(),
    ]);
    expect(await column(page, 2)).toEqual(['#4']);
    expect(await page.locator('input[name=repository]').inputValue()).toBe('acme/apps');
  });

  it("opens a review's HTML report through its signed link", async (ctx) => {
    const page = await open(ctx);
    await Promise.all([
      page.waitForURL(/\/reports\/acme\/fleet\/pulls\/12\?/),
      page.locator('a.report').nth(2).click(),
    ]);
    expect(await page.title()).toBe('fluxlens: Deletes a PersistentVolumeClaim (data loss)');
  });
});
