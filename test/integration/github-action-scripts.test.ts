/**
 * The shell steps of action.yml: fetching a shallow pull-request checkout back to its
 * merge-base (real git, a file:// origin standing in for GitHub), and installing kustomize
 * and helm only when an archive has the digest it must have (a local release server).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../support/paths.js';
import { makeRepo } from '../support/repo.js';

const execFileAsync = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'fluxlens-action-scripts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const gitEnv = { PATH: process.env['PATH'] ?? '', HOME: scratch, GIT_CONFIG_NOSYSTEM: '1' };
const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: gitEnv }).trim();

/** Runs a script of scripts/ with only the variables given; its exit code and output. */
async function script(name: string, env: Record<string, string>) {
  return execFileAsync('bash', [join(projectRoot, 'scripts', name)], {
    env: { ...gitEnv, ...env },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: e.code ?? -1,
      stdout: `${e.stdout ?? ''}${e.stderr ?? ''}`,
    }),
  );
}

describe('scripts/action-fetch-history', () => {
  let upstream: string;
  const sha = { base: '', head: '', merge: '' };

  /** 40 shared commits, then 70 on the PR branch and 60 on main, and GitHub's merge ref. */
  beforeAll(() => {
    const repo = makeRepo({ 'a.txt': '0\n' }, { git: true });
    upstream = repo.dir;
    const commits = (file: string, count: number) => {
      for (let i = 1; i <= count; i += 1) {
        repo.write({ [file]: `${i}\n` });
        repo.commit(`${file} ${i}`);
      }
    };
    commits('a.txt', 40);
    git(upstream, 'checkout', '-q', '-b', 'feature');
    commits('b.txt', 70);
    sha.head = git(upstream, 'rev-parse', 'HEAD');
    git(upstream, 'checkout', '-q', 'main');
    commits('c.txt', 60);
    sha.base = git(upstream, 'rev-parse', 'HEAD');
    git(upstream, 'checkout', '-q', '-b', 'merge');
    git(upstream, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'merge', '-q', 'feature');
    sha.merge = git(upstream, 'rev-parse', 'HEAD');
    git(upstream, 'update-ref', 'refs/pull/7/merge', sha.merge);
    git(upstream, 'checkout', '-q', 'main');
  });
  afterAll(() => rmSync(upstream, { recursive: true, force: true }));

  /**
   * A checkout as actions/checkout makes one: by default the PR's merge commit alone at
   * depth 1; with fetch-depth 0 every branch and the merge ref, whole.
   */
  function checkout(fetchDepth: 0 | 1): string {
    const dir = mkdtempSync(join(scratch, 'checkout-'));
    git(dir, 'init', '-q');
    git(dir, 'remote', 'add', 'origin', `file://${upstream}`);
    if (fetchDepth === 1) {
      git(dir, 'fetch', '-q', '--no-tags', '--depth=1', 'origin', 'refs/pull/7/merge');
    } else {
      git(dir, 'fetch', '-q', 'origin', '+refs/heads/*:refs/remotes/origin/*', 'refs/pull/7/merge');
    }
    git(dir, 'checkout', '-q', sha.merge);
    return dir;
  }

  const run = (dir: string) =>
    script('action-fetch-history', {
      FLUXLENS_BASE_SHA: sha.base,
      FLUXLENS_HEAD_SHA: sha.head,
      FLUXLENS_REPOSITORY: dir,
    });

  it('fetches a depth-1 checkout back to where base and head meet', async () => {
    const dir = checkout(1);
    // Neither end is there: only the merge commit, with its parents cut off.
    expect(() => git(dir, 'cat-file', '-e', `${sha.head}^{commit}`)).toThrow();

    const result = await run(dir);

    expect(result.code).toBe(0);
    const ancestor = git(upstream, 'merge-base', sha.base, sha.head);
    expect(git(dir, 'merge-base', sha.base, sha.head)).toBe(ancestor);
    expect(result.stdout).toContain(`meet at ${ancestor.slice(0, 12)}`);
  });

  it('fetches nothing when the checkout has the whole history (fetch-depth: 0)', async () => {
    const dir = checkout(0);
    // An origin that cannot answer: any fetch would fail the script.
    git(dir, 'remote', 'set-url', 'origin', `file://${join(scratch, 'gone')}`);

    const result = await run(dir);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('meet at');
  });
});

describe('scripts/action-install-tools', () => {
  const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  const releases = join(scratch, 'releases');
  let server: Server;
  let url = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = join(releases, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      const found = path.startsWith(releases) && existsSync(path);
      if (found) res.writeHead(200).end(readFileSync(path));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A release archive holding a stand-in binary that prints `says`; returns its digest. */
  function archive(path: string, member: string, says: string): string {
    const stage = mkdtempSync(join(scratch, 'stage-'));
    mkdirSync(dirname(join(stage, member)), { recursive: true });
    writeFileSync(join(stage, member), `#!/bin/sh\necho '${says}'\n`, { mode: 0o755 });
    mkdirSync(dirname(join(releases, path)), { recursive: true });
    execFileSync('tar', ['-czf', join(releases, path), '-C', stage, member]);
    return createHash('sha256')
      .update(readFileSync(join(releases, path)))
      .digest('hex');
  }

  /** kustomize and helm `version` at this server, publishing `digests` (default: the true ones). */
  function publish(version: string, digests: { kustomize?: string; helm?: string } = {}): void {
    const k = `kustomize_${version}_linux_${arch}.tar.gz`;
    const kDigest = archive(`kustomize/${version}/${k}`, 'kustomize', version);
    writeFileSync(
      join(releases, `kustomize/${version}/checksums.txt`),
      `${digests.kustomize ?? kDigest}  ${k}\n`,
    );
    const h = `helm-${version}-linux-${arch}.tar.gz`;
    const hDigest = archive(h, `linux-${arch}/helm`, `${version}+g0123abc`);
    writeFileSync(join(releases, `${h}.sha256sum`), `${digests.helm ?? hDigest}  ${h}\n`);
  }

  const install = (env: Record<string, string>) => {
    const tools = mkdtempSync(join(scratch, 'tools-'));
    const result = script('action-install-tools', {
      FLUXLENS_TOOLS_DIR: tools,
      FLUXLENS_KUSTOMIZE_RELEASES: url,
      FLUXLENS_HELM_RELEASES: url,
      ...env,
    });
    return { tools, result };
  };

  it('installs another version once its archives match the digests published beside them', async () => {
    publish('v9.9.1');
    const { tools, result } = install({
      FLUXLENS_KUSTOMIZE_VERSION: 'v9.9.1',
      FLUXLENS_HELM_VERSION: 'v9.9.1',
    });
    expect(await result).toMatchObject({ code: 0 });
    expect(execFileSync(join(tools, 'bin/kustomize'), ['version'], { encoding: 'utf8' })).toBe(
      'v9.9.1\n',
    );
    expect(existsSync(join(tools, 'bin/helm'))).toBe(true);
  });

  it('refuses an archive whose digest is not the published one, and installs nothing', async () => {
    publish('v9.9.2', { kustomize: 'f'.repeat(64) });
    const { tools, result } = install({
      FLUXLENS_KUSTOMIZE_VERSION: 'v9.9.2',
      FLUXLENS_HELM_VERSION: 'v9.9.2',
    });
    const { code, stdout } = await result;
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /::error::kustomize_v9\.9\.2_linux_\w+\.tar\.gz: SHA-256 [0-9a-f]{64} is not/,
    );
    expect(existsSync(join(tools, 'bin/kustomize'))).toBe(false);
  });

  it('holds the pinned versions to their own digests, whatever a server publishes', async () => {
    const pinned = /^PINNED_KUSTOMIZE=(\S+)$/m.exec(
      readFileSync(join(projectRoot, 'scripts/action-install-tools'), 'utf8'),
    )?.[1];
    expect(pinned).toMatch(/^v\d/);
    // A look-alike of the pinned release, with a checksum file that agrees with it.
    publish(pinned ?? '');
    const { tools, result } = install({});
    const { code, stdout } = await result;
    expect(code).toBe(1);
    expect(stdout).toContain('::error::kustomize_');
    expect(existsSync(join(tools, 'bin/kustomize'))).toBe(false);
  });
});
