/**
 * A release tag is published only when everything that names the release names it: the
 * check the release workflow runs first, on copies of the repository's own files.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changelogSection, checkRelease } from '../../scripts/release/check-release.js';
import { projectRoot } from '../support/paths.js';

const FILES = [
  'package.json',
  'CHANGELOG.md',
  'deploy/kubernetes/base/kustomization.yaml',
  'deploy/flux/fluxlens.yaml',
  'deploy/flux/source.yaml',
];
const version = (
  JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }
).version;

let root: string;
const edit = (path: string, from: string | RegExp, to: string) => {
  const file = join(root, path);
  const text = readFileSync(file, 'utf8');
  expect(text).toMatch(from);
  writeFileSync(file, text.replace(from, to));
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fluxlens-release-'));
  for (const path of FILES) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    cpSync(join(projectRoot, path), join(root, path));
  }
  // As the release commit would: the Unreleased section becomes the version's.
  edit('CHANGELOG.md', /^## \[Unreleased\].*$/m, `## [${version}] - 2026-12-07`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the release check', () => {
  it("passes the tag of package.json's version and gives its CHANGELOG section as the notes", () => {
    const check = checkRelease(root, `v${version}`);
    expect(check.problems).toEqual([]);
    expect(check.notes).toContain('### Added');
    expect(check.notes).not.toContain(`## [${version}]`);
  });

  it.each([
    ['package.json', 'package.json', `"version": "${version}"`, '"version": "9.9.9"'],
    [
      "the base's image tag",
      'deploy/kubernetes/base/kustomization.yaml',
      `newTag: ${version}`,
      'newTag: 9.9.9',
    ],
    [
      "the Flux example's image tag",
      'deploy/flux/fluxlens.yaml',
      `fluxlens_version: '${version}'`,
      "fluxlens_version: '9.9.9'",
    ],
    ["the Flux example's source tag", 'deploy/flux/source.yaml', `tag: v${version}`, 'tag: v9.9.9'],
  ])('fails, naming the file, when %s names another version', (_what, path, from, to) => {
    edit(path, from, to);
    const { problems } = checkRelease(root, `v${version}`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(path);
    expect(problems[0]).toContain('9.9.9');
  });

  it('fails without a CHANGELOG section for the version', () => {
    edit('CHANGELOG.md', `## [${version}]`, '## [Unreleased]');
    expect(checkRelease(root, `v${version}`).problems).toEqual([
      `CHANGELOG.md has no section "## [${version}]"`,
    ]);
  });

  it.each(['v1', 'v1.2', '1.2.3', 'release-1.2.3'])('refuses %s as a release tag', (tag) => {
    expect(checkRelease(root, tag).problems).toEqual([
      `${tag} is not a release tag (vMAJOR.MINOR.PATCH)`,
    ]);
  });
});

describe('a CHANGELOG section', () => {
  const changelog = [
    '# Changelog',
    '## [Unreleased]',
    '- next',
    '## [1.1.0] - 2026-12-01',
    '### Fixed',
    '- one',
    '## [1.0.0] - 2026-11-01',
    '- first',
  ].join('\n');

  it('runs from its heading to the next release, without either heading', () => {
    expect(changelogSection(changelog, '1.1.0')).toBe('### Fixed\n- one');
    expect(changelogSection(changelog, '1.0.0')).toBe('- first');
  });

  it('is empty for a version it does not list', () => {
    expect(changelogSection(changelog, '1.0')).toBe('');
    expect(changelogSection(changelog, '2.0.0')).toBe('');
  });
});
