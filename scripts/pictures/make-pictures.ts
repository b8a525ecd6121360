/**
 * The README's two pictures, from a real analysis: the example's Markdown report shown as
 * a PR comment, and its HTML report, each screenshotted by headless Chromium. Nothing is
 * drawn by hand: change the report code and the pictures change with it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { commentPage } from './comment-page.js';
import {
  EXAMPLE,
  buildExampleRepository,
  diffExample,
  pullRequestTitle,
} from './example-review.js';

export interface PictureOptions {
  /** Where pr-comment.png and html-report.png are written. */
  outDir: string;
  /** The Chromium binary; default FLUXLENS_CHROMIUM, else Debian's /usr/bin/chromium. */
  chromium?: string;
}

export interface Picture {
  /** The PNG written. */
  file: string;
  /** The page it shows. */
  html: string;
  /** In CSS pixels (the device scale factor is 1). */
  width: number;
  height: number;
}

export interface Pictures {
  comment: Picture;
  report: Picture;
}

export function defaultChromium(env: NodeJS.ProcessEnv = process.env): string {
  return env['FLUXLENS_CHROMIUM'] ?? '/usr/bin/chromium';
}

export async function makePictures(options: PictureOptions): Promise<Pictures> {
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-pictures-'));
  try {
    const repo = buildExampleRepository(work);
    // An empty cache of its own, offline: the same report as `npm run example`.
    const cacheDir = join(work, 'cache');
    const markdown = await diffExample(repo, 'markdown', cacheDir);
    const report = await diffExample(repo, 'html', cacheDir);
    const title = pullRequestTitle(repo);
    const comment = commentPage({ title, base: EXAMPLE.base, head: EXAMPLE.head, markdown });
    mkdirSync(options.outDir, { recursive: true });
    const browser = await chromium.launch({
      executablePath: options.chromium ?? defaultChromium(),
    });
    try {
      return {
        comment: await screenshot(browser, comment, {
          file: join(options.outDir, 'pr-comment.png'),
          width: 960,
          prepare: openFirstProducer,
        }),
        report: await screenshot(browser, report, {
          file: join(options.outDir, 'html-report.png'),
          width: 1200,
          prepare: showImmutableFieldDiff,
          // The footer holds this run's timings: noise in a picture.
          clipTo: 'main',
        }),
      };
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

interface ShotOptions {
  file: string;
  width: number;
  /** What a reader would click before looking. */
  prepare: (page: Page) => Promise<void>;
  /** Cut the picture at the bottom of this element instead of the page's. */
  clipTo?: string;
}

async function screenshot(browser: Browser, html: string, shot: ShotOptions): Promise<Picture> {
  const page = await browser.newPage({
    viewport: { width: shot.width, height: 800 },
    deviceScaleFactor: 1,
    javaScriptEnabled: true,
  });
  try {
    await page.setContent(html, { waitUntil: 'load' });
    await shot.prepare(page);
    const height = await pageHeight(page, shot.clipTo);
    await page.screenshot({
      path: shot.file,
      fullPage: true,
      clip: { x: 0, y: 0, width: shot.width, height },
    });
    return { file: shot.file, html, width: shot.width, height };
  } finally {
    await page.close();
  }
}

/** Down to the bottom of `selector` (with a margin), or the whole page's height. */
async function pageHeight(page: Page, selector: string | undefined): Promise<number> {
  // In-page code as strings: this project compiles without the DOM library.
  await page.evaluate('window.scrollTo(0, 0)');
  const box = selector === undefined ? null : await page.locator(selector).boundingBox();
  if (box !== null) return Math.ceil(box.y + box.height + 24);
  return Number(await page.evaluate('document.documentElement.scrollHeight'));
}

/** The comment as GitHub shows it, with the riskiest producer's diffs unfolded. */
async function openFirstProducer(page: Page): Promise<void> {
  await page.locator('details details > summary').first().click();
}

/** The report with the StatefulSet's claim-template diff on show (else the first diff). */
async function showImmutableFieldDiff(page: Page): Promise<void> {
  const finding = page
    .locator('li.finding')
    .filter({ has: page.locator('code.rule', { hasText: 'immutable-field-changed' }) })
    .locator('button.show');
  const button = (await finding.count()) > 0 ? finding.first() : page.locator('button.show');
  if ((await button.count()) > 0) await button.first().click();
}
