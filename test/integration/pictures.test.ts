/**
 * `npm run pictures` draws the README's pictures from a real review of the bundled example
 * (real git, kustomize and headless Chromium): PNGs of the pages' size, well under 500 KB,
 * showing the findings the analysis computes, not a drawing of them.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/index.js';
import { parseAnalysisResult } from '../../src/report/index.js';
import { buildExampleRepository, diffExample } from '../../scripts/pictures/example-review.js';
import {
  defaultChromium,
  makePictures,
  type Pictures,
} from '../../scripts/pictures/make-pictures.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_BYTES = 500 * 1024;

/** Width and height from a PNG's IHDR chunk, which the format puts first. */
function pngSize(file: string): { signature: Buffer; width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return {
    signature: bytes.subarray(0, 8),
    width: bytes.readUInt32BE(16),
    height: bytes.readUInt32BE(20),
  };
}

/** What a reader sees of a page: its text without tags, entities decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>|<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

const resourceLabel = (r: { kind: string; namespace?: string; name: string }): string =>
  [r.kind, r.namespace, r.name].filter((part) => part !== undefined && part !== '').join('/');

const chromium = defaultChromium();
let work: string;
let pictures: Pictures;
let analysis: AnalysisResult;

describe.skipIf(!existsSync(chromium))('the README pictures', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'fluxlens-pictures-test-'));
    pictures = await makePictures({ outDir: join(work, 'images'), chromium });
    // The findings as the analysis computes them, from a review of its own.
    const repo = buildExampleRepository(join(work, 'example'));
    analysis = parseAnalysisResult(await diffExample(repo, 'json', join(work, 'cache')));
  }, 120_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.each(['comment', 'report'] as const)(
    'draw the %s as a PNG the size of its page, well under 500 KB',
    (which) => {
      const picture = pictures[which];
      const png = pngSize(picture.file);
      expect(png.signature.equals(PNG_SIGNATURE)).toBe(true);
      expect(png).toMatchObject({ width: picture.width, height: picture.height });
      expect(png.width).toBeGreaterThanOrEqual(900);
      expect(png.height).toBeGreaterThan(600);
      expect(statSync(picture.file).size).toBeLessThan(MAX_BYTES);
    },
  );

  it('show a review with findings, as the example is meant to', () => {
    expect(analysis.verdict.level).toBe('danger');
    expect(analysis.findings.length).toBeGreaterThanOrEqual(4);
  });

  it.each(['comment', 'report'] as const)(
    'show in the %s every finding of the analysis: its rule, resource and message',
    (which) => {
      const text = visibleText(pictures[which].html);
      for (const finding of analysis.findings) {
        expect(text).toContain(finding.rule);
        expect(text).toContain(resourceLabel(finding.resource));
        expect(text).toContain(finding.message);
      }
    },
  );

  it('show the PR comment with the verdict and the object diffs fluxlens wrote', () => {
    const text = visibleText(pictures.comment.html);
    expect(text).toContain(`fluxlens: ${analysis.verdict.level.toUpperCase()}`);
    expect(pictures.comment.html).toContain('<details');
    expect(pictures.comment.html).toMatch(/<span class="del">-\s+storage: 1Gi<\/span>/);
    expect(pictures.comment.html).toMatch(/<span class="add">\+\s+storage: 2Gi<\/span>/);
  });
});
