/**
 * `node --import tsx scripts/release/main.ts vX.Y.Z`: the release workflow's first job. Exits
 * 1, naming each file, when package.json, deploy/ or CHANGELOG.md name another version than
 * the tag; else prints the tag's CHANGELOG.md section, the release notes, on stdout.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkRelease } from './check-release.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tag = process.argv[2] ?? '';
const { problems, notes } = checkRelease(root, tag);
if (problems.length > 0) {
  process.stderr.write(
    `release ${tag || '(no tag given)'}:\n${problems.map((p) => `  ${p}\n`).join('')}`,
  );
  process.exitCode = 1;
} else {
  process.stdout.write(`${notes}\n`);
}
