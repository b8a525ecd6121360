/**
 * What `fluxlens action` hands the runner: a job summary GitHub will show (at most 1 MiB
 * of UTF-8 per step), outputs no value can break out of, and warnings that stay one line.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  appendSummary,
  markdownWithinBytes,
  SUMMARY_MAX_BYTES,
  warningCommand,
  writeOutputs,
} from '../../src/cli/action-files.js';
import { renderMarkdown } from '../../src/report/index.js';
import { analysis, change, finding } from './report/analysis-builders.js';

const dir = mkdtempSync(join(tmpdir(), 'fluxlens-action-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Thousands of changed objects whose diffs are three-byte characters: megabytes of UTF-8. */
const huge = analysis({
  changes: Array.from({ length: 3000 }, (_, i) =>
    change({
      name: `web-${i}`,
      id: `apps/Deployment/apps/web-${i}`,
      // Distinct changes: identical ones would be grouped into one block.
      diff: `@@ -1 +1 @@\n-motto: ${'€'.repeat(200)}\n+motto: ${'ü'.repeat(200)} ${i}\n`,
    }),
  ),
  findings: [finding({ level: 'danger', message: 'Deletes the data of web-0' })],
});

describe('the job summary', () => {
  it('holds as much of the report as fits in 1 MiB of UTF-8, verdict first', () => {
    // A budget in characters alone would overflow: these are three bytes each.
    const byChars = renderMarkdown(huge, { maxChars: SUMMARY_MAX_BYTES });
    expect(Buffer.byteLength(byChars, 'utf8')).toBeGreaterThan(SUMMARY_MAX_BYTES);
    const text = markdownWithinBytes(huge, SUMMARY_MAX_BYTES);
    const bytes = Buffer.byteLength(text, 'utf8');
    expect(bytes).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(bytes).toBeGreaterThan(SUMMARY_MAX_BYTES / 2);
    expect(text).toMatch(/^### fluxlens: \*\*DANGER\*\*/);
    expect(text).toContain('not shown');
  });

  it('is appended within what is left of the step summary', async () => {
    const file = join(dir, 'partly-used.md');
    const used = SUMMARY_MAX_BYTES - 200_000;
    writeFileSync(file, 'x'.repeat(used));
    expect(await appendSummary(file, huge)).toBe(true);
    expect(statSync(file).size).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(statSync(file).size).toBeGreaterThan(used + 100_000);
  });

  it('is left alone when too little of it is left for the verdict', async () => {
    const file = join(dir, 'full.md');
    writeFileSync(file, 'x'.repeat(SUMMARY_MAX_BYTES - 100));
    expect(await appendSummary(file, huge)).toBe(false);
    expect(statSync(file).size).toBe(SUMMARY_MAX_BYTES - 100);
  });
});

describe('the step outputs', () => {
  it('keep a value whole, newlines and delimiter look-alikes included', async () => {
    const file = join(dir, 'outputs');
    writeFileSync(file, '');
    const tricky = 'first line\nEOF\nfluxlens_x\nlast=line';
    await writeOutputs(file, { verdict: 'danger', path: tricky });
    const text = readFileSync(file, 'utf8');
    const records = [...text.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2\n/gm)];
    expect(Object.fromEntries(records.map((r) => [r[1], r[3]]))).toEqual({
      verdict: 'danger',
      path: tricky,
    });
  });
});

describe('warnings', () => {
  it('stay one workflow command whatever the message holds', () => {
    expect(warningCommand('100% sure\r\n::error::injected')).toBe(
      '::warning::100%25 sure%0D%0A::error::injected\n',
    );
  });
});
