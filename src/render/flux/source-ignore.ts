/**
 * Which files a Flux source artifact leaves out, as source-controller decides it: every
 * `.sourceignore` (scoped to its folder), then the source's `spec.ignore`; when there are
 * none, the default exclusions instead; VCS files always. The last matching pattern wins,
 * and a pattern that matches a folder matches everything under it. Folders are not
 * pruned: a file inside an excluded folder can be re-included by a later pattern.
 */
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { IgnoreRule } from '../../model/index.js';
import { walkTree, type TreeEntry } from '../workspace/index.js';
import ignore, { type Ignore } from 'ignore';

const VCS_PATTERNS = ['.git/', '.gitignore', '.gitmodules', '.gitattributes'];

const DEFAULT_PATTERNS = [
  '*.jpg',
  '*.jpeg',
  '*.gif',
  '*.png',
  '*.wmv',
  '*.flv',
  '*.tar.gz',
  '*.zip',
  '.github/',
  '.circleci/',
  '.travis.yml',
  '.gitlab-ci.yml',
  'appveyor.yml',
  '.drone.yml',
  'cloudbuild.yaml',
  'codeship-services.yml',
  'codeship-steps.yml',
  '**/.goreleaser.yml',
  '**/.sops.yaml',
  '**/.flux.yaml',
];

interface ScopedPattern {
  /** Folder (relative to the source root, '' for the root) the pattern applies within. */
  domain: string;
  /** The pattern as written. */
  pattern: string;
  /** Where it is written (IgnoreRule.from). */
  from: string;
  matcher: Ignore;
}

const VCS_FROM = "source-controller's version control exclusions";
const DEFAULT_FROM = "source-controller's default exclusions (no .sourceignore nor spec.ignore)";

export class SourceIgnore {
  /** Per folder, one matcher of its patterns as exclusions only (see mayIgnore). */
  #loose: Array<{ domain: string; matcher: Ignore }> | undefined;

  private constructor(private readonly patterns: readonly ScopedPattern[]) {}

  /**
   * Loads the rules of the source tree at `root`; `specIgnore` is the source's spec.ignore,
   * `entries` the tree's listing when the caller has walked it already.
   */
  static async load(
    root: string,
    specIgnore?: string,
    entries?: readonly TreeEntry[],
    specFrom = 'spec.ignore',
  ): Promise<SourceIgnore> {
    const own = await ignoreFilePatterns(root, entries ?? (await walkTree(root)));
    if (specIgnore !== undefined) own.push(...readPatterns(specIgnore, '', specFrom));
    const base = [
      ...VCS_PATTERNS.map((p) => scoped('', p, VCS_FROM)),
      ...(own.length > 0 ? [] : DEFAULT_PATTERNS.map((p) => scoped('', p, DEFAULT_FROM))),
    ];
    return new SourceIgnore([...base, ...own]);
  }

  /** The rules as data, to be kept with a render (RepositoryReads.ignore). */
  rules(): IgnoreRule[] {
    return this.patterns.map(({ domain, pattern, from }) => ({ dir: domain, pattern, from }));
  }

  /**
   * False when no pattern could leave out `relPath` or a folder above it, which is certain;
   * true: ask ignores(). One matcher per folder's patterns, all read as exclusions, answers
   * for most paths at once where ignores() asks each pattern about each folder in turn.
   */
  mayIgnore(relPath: string, isDir: boolean): boolean {
    this.#loose ??= [...new Set(this.patterns.map((p) => p.domain))].map((domain) => ({
      domain,
      matcher: ignore({ allowRelativePaths: true }).add(
        this.patterns.filter((p) => p.domain === domain).map((p) => p.pattern.replace(/^!/, '')),
      ),
    }));
    return this.#loose.some(({ domain, matcher }) => {
      if (domain !== '' && !relPath.startsWith(`${domain}/`)) return false;
      const rel = domain === '' ? relPath : relPath.slice(domain.length + 1);
      return matcher.ignores(isDir ? `${rel}/` : rel);
    });
  }

  /** True when the file or folder at `relPath` (forward slashes, no leading './') is left out. */
  ignores(relPath: string, isDir: boolean): boolean {
    const segments = relPath.split('/').filter(Boolean);
    for (let i = this.patterns.length - 1; i >= 0; i--) {
      const verdict = matchScoped(this.patterns[i]!, segments, isDir);
      if (verdict !== undefined) return verdict;
    }
    return false;
  }
}

/** The rule that leaves the file at `relPath` out, if one does; `rules` as rules() gives them. */
export function ignoreRuleOf(
  rules: readonly IgnoreRule[],
  relPath: string,
): IgnoreRule | undefined {
  const segments = relPath.split('/').filter(Boolean);
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    const verdict = matchScoped(scoped(rule.dir, rule.pattern, rule.from), segments, false);
    if (verdict !== undefined) return verdict ? rule : undefined;
  }
  return undefined;
}

function scoped(domain: string, pattern: string, from: string): ScopedPattern {
  return { domain, pattern, from, matcher: ignore({ allowRelativePaths: true }).add(pattern) };
}

function readPatterns(text: string, domain: string, from: string): ScopedPattern[] {
  return text
    .split(/\r?\n/)
    .filter((line) => !line.startsWith('#') && line.trim() !== '')
    .map((line) => scoped(domain, line, from));
}

/** undefined: the pattern says nothing; true: excluded; false: re-included. */
function matchScoped(p: ScopedPattern, segments: string[], isDir: boolean): boolean | undefined {
  const domain = p.domain ? p.domain.split('/') : [];
  if (domain.length >= segments.length && domain.length > 0) return undefined;
  if (domain.some((d, i) => segments[i] !== d)) return undefined;
  const rel = segments.slice(domain.length);
  for (let k = 1; k <= rel.length; k++) {
    const asDir = k < rel.length || isDir;
    const result = p.matcher.test(rel.slice(0, k).join('/') + (asDir ? '/' : ''));
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return undefined;
}

/**
 * The patterns of every `.sourceignore` file in the tree, a folder's before those of the
 * folders in it, sibling folders by name: a later pattern overrides an earlier one.
 */
async function ignoreFilePatterns(
  root: string,
  entries: readonly TreeEntry[],
): Promise<ScopedPattern[]> {
  const folders = entries
    .filter((e) => e.kind === 'file' && posix.basename(e.path) === '.sourceignore')
    .map((e) => posix.dirname(e.path))
    .map((dir) => (dir === '.' ? [] : dir.split('/')))
    .sort(folderOrder);
  const texts = await Promise.all(
    folders.map((segments) => readFile(join(root, ...segments, '.sourceignore'), 'utf8')),
  );
  return folders.flatMap((segments, i) => {
    const dir = segments.join('/');
    return readPatterns(texts[i] ?? '', dir, dir === '' ? '.sourceignore' : `${dir}/.sourceignore`);
  });
}

/** A walk's order: a folder before what it holds, siblings by name. */
function folderOrder(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}
