/**
 * The scenario commits of a real repository, made in a scratch clone: heads built on the
 * PR's base (the PR plus a comment line, a shared component changed, every HelmRelease's
 * values changed), and a copy of each commit whose OCI chart sources point at another
 * registry. Rewriting the commits, base and head alike, rather than mapping URLs inside a
 * tool is what lets both tools get the same charts from the same local registry, with no
 * option only the benchmark would use.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, parseAllDocuments } from 'yaml';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@fluxlens.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@fluxlens.invalid',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

export function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: repo,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      ...IDENTITY,
    },
  }).trim();
}

function filesWith(repo: string, commit: string, text: string): string[] {
  try {
    return git(repo, 'grep', '-l', '-F', text, commit, '--', '*.yaml', '*.yml')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(commit.length + 1));
  } catch {
    return [];
  }
}

/**
 * A commit with `parent` as its parent and `source`'s tree after `edit` changed the work
 * tree's files; `edit` gets the checkout and returns nothing.
 */
function commitEdited(
  repo: string,
  source: string,
  parent: string,
  message: string,
  edit: () => void,
): string {
  git(repo, 'checkout', '-q', '--force', '--detach', source);
  edit();
  git(repo, 'add', '-A');
  const tree = git(repo, 'write-tree');
  return git(repo, 'commit-tree', tree, '-p', parent, '-m', message);
}

function editYaml(
  file: string,
  change: (doc: ReturnType<typeof parseAllDocuments>[number]) => boolean,
) {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  let changed = false;
  for (const doc of docs)
    if ('contents' in doc && isMap(doc.contents)) changed = change(doc) || changed;
  if (changed) writeFileSync(file, docs.map((d) => String(d)).join(''));
  return changed;
}

/** The PR's own change on its base, plus a comment line that makes the head new. */
export function onePrHead(repo: string, pr: string, tag: string): string {
  const base = git(repo, 'rev-parse', `${pr}^1`);
  const file = git(repo, 'diff', '--name-only', base, pr).split('\n')[0];
  if (file === undefined || file === '') throw new Error(`${pr} changes no file`);
  return commitEdited(repo, pr, base, `one-file ${tag}`, () => {
    const path = join(repo, file);
    writeFileSync(path, `${readFileSync(path, 'utf8')}# ${tag}\n`);
  });
}

/** A label added to every object of one component file that many Kustomizations use. */
export function sharedComponentHead(repo: string, base: string, file: string, tag: string) {
  return commitEdited(repo, base, base, `shared-component ${tag}`, () => {
    const changed = editYaml(join(repo, file), (doc) => {
      doc.setIn(['metadata', 'labels', 'bench.fluxlens.io/shared'], tag);
      return true;
    });
    if (!changed) throw new Error(`no object to change in ${file}`);
  });
}

/** A value added to every HelmRelease of the repository. */
export function everyReleaseHead(repo: string, base: string, tag: string): string {
  return commitEdited(repo, base, base, `every-release ${tag}`, () => {
    let count = 0;
    for (const file of filesWith(repo, base, 'kind: HelmRelease')) {
      const changed = editYaml(join(repo, file), (doc) => {
        if (doc.get('kind') !== 'HelmRelease') return false;
        doc.setIn(['spec', 'values', 'benchRevision'], tag);
        return true;
      });
      if (changed) count += 1;
    }
    if (count === 0) throw new Error('no HelmRelease to change');
  });
}

/**
 * `commit` with every OCI chart source moved under `registry` (`oci://ghcr.io/a` becomes
 * `oci://REGISTRY/ghcr.io/a`) and marked insecure (plain HTTP, as a loopback registry
 * speaks), on `parent`.
 */
export function withRegistry(repo: string, commit: string, parent: string, registry: string) {
  return commitEdited(repo, commit, parent, `${commit} via ${registry}`, () => {
    for (const file of filesWith(repo, commit, 'oci://')) {
      editYaml(join(repo, file), (doc) => {
        const url = doc.getIn(['spec', 'url']);
        if (doc.get('kind') !== 'OCIRepository' || typeof url !== 'string') return false;
        if (!url.startsWith('oci://')) return false;
        doc.setIn(['spec', 'url'], `oci://${registry}/${url.slice('oci://'.length)}`);
        doc.setIn(['spec', 'insecure'], true);
        return true;
      });
    }
  });
}
