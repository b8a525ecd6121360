/**
 * `npm run pictures` (node --import tsx scripts/pictures/main.ts [--out DIR]): redraws
 * docs/images/pr-comment.png and docs/images/html-report.png from the bundled example.
 * Needs the tools `npm run example` installs (kustomize) and Chromium (FLUXLENS_CHROMIUM,
 * else /usr/bin/chromium); it installs nothing and reaches no network.
 */
import { statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from './example-review.js';
import { makePictures, type Picture } from './make-pictures.js';

function describe(picture: Picture): string {
  const kb = Math.round(statSync(picture.file).size / 1024);
  const where = relative(process.cwd(), picture.file) || picture.file;
  return `wrote ${where} (${picture.width}x${picture.height}, ${kb} KB)\n`;
}

async function run(): Promise<number> {
  const { values } = parseArgs({
    options: { out: { type: 'string', default: join(projectRoot, 'docs', 'images') } },
  });
  const pictures = await makePictures({ outDir: values.out });
  process.stdout.write(describe(pictures.comment) + describe(pictures.report));
  return 0;
}

process.exitCode = await run().catch((err: unknown) => {
  process.stderr.write(`pictures: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
});
