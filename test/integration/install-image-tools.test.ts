/**
 * scripts/install-image-tools as CI runs it on the host: no release downloads (--from-source),
 * the pinned tools already built in the developer tools directory. It copies them into a fresh
 * PREFIX and leaves kustomize and helm there that run at the pinned versions; git is the
 * runtime's (--check requires it, an install without flux-local neither needs nor installs it). Tests never
 * reach GitHub or get.helm.sh, where the image build downloads from; a curl that serves other
 * bytes shows that a download is checked against the pinned SHA-256 before it is used.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../support/paths.js';
import { runFile, type FileRun } from '../support/run-file.js';

const script = join(projectRoot, 'scripts/install-image-tools');

describe('scripts/install-image-tools on a host with the tools built', () => {
  let work: string;
  let prefix: string;
  let first: FileRun;
  let pinned: { kustomize: string; helm: string };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'fluxlens-image-tools-test-'));
    prefix = join(work, 'prefix');
    // The versions as the scripts see them: by sourcing the shared file.
    const versions = await runFile('bash', [
      '-c',
      'source scripts/tool-versions.sh && echo "$KUSTOMIZE_VERSION $HELM_VERSION"',
    ]);
    const [kustomize = '', helm = ''] = versions.stdout.trim().split(' ');
    pinned = { kustomize, helm };
    first = await runFile('bash', [script, '--from-source', prefix]);
    // Minutes only when the developer tools directory lacks them (scripts/test installs them first).
  }, 900_000);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('copies the kustomize, helm and kustomize-server built from the Go module proxy, and says so', () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^source {2}kustomize \(copied from .*\/bin\/kustomize\)$/m);
    expect(first.stdout).toMatch(/^source {2}helm \(copied from .*\/bin\/helm\)$/m);
    expect(first.stdout).toMatch(
      /^source {2}kustomize-server \(copied from .*\/bin\/kustomize-server\)$/m,
    );
    expect(first.stdout).toMatch(/^source {2}helm-server \(copied from .*\/bin\/helm-server\)$/m);
    expect(first.stdout).not.toMatch(/^release/m);
  });

  it('leaves a kustomize-server stamped with the digest of tools/kustomize-server', async () => {
    const digest = await runFile('bash', [
      '-c',
      'cd tools/kustomize-server && find . -type f \\( -name "*.go" -o -name go.mod -o -name go.sum \\) | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16',
    ]);
    const version = await runFile(join(prefix, 'bin', 'kustomize-server'), ['--version']);
    expect(digest.stdout.trim()).toMatch(/^[0-9a-f]{16}$/);
    expect(version.stdout).toMatch(
      new RegExp(`^kustomize-server ${digest.stdout.trim()} \\(kustomize ${pinned.kustomize},`),
    );
  });

  it('leaves kustomize, helm and git in PREFIX/bin and on PATH that run at the pinned versions', async () => {
    const env = {
      ...process.env,
      PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}`,
      HELM_CACHE_HOME: join(work, 'helm', 'cache'),
      HELM_CONFIG_HOME: join(work, 'helm', 'config'),
      HELM_DATA_HOME: join(work, 'helm', 'data'),
    };
    const kustomize = await runFile(join(prefix, 'bin', 'kustomize'), ['version'], { env });
    const helm = await runFile(join(prefix, 'bin', 'helm'), ['version', '--short'], { env });
    const git = await runFile('git', ['--version'], { env });

    expect(pinned.kustomize).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(kustomize.stdout.trim()).toBe(pinned.kustomize);
    expect(helm.stdout.trim().split('+')[0]).toBe(pinned.helm);
    expect(git.stdout).toMatch(/^git version \d/);
  });

  it('leaves git to the runtime: the install neither checks nor installs it, --check requires it', async () => {
    expect(first.stdout).not.toMatch(/^(ok|missing|apt) +git\b/m);
    const check = await runFile('bash', [script, '--check', prefix]);
    expect(check.code, check.stdout).toBe(0);
    expect(check.stdout).toMatch(/^ok {2}git \(git version \d/m);
  });

  it('finds them in place on a second run and copies nothing', async () => {
    const second = await runFile('bash', [script, '--from-source', prefix]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^ok {2}kustomize \(already in /m);
    expect(second.stdout).toMatch(/^ok {2}helm \(already in /m);
    expect(second.stdout).toMatch(/^ok {2}kustomize-server \(already in /m);
    expect(second.stdout).toMatch(/^ok {2}helm-server \(already in /m);
    expect(second.stdout).not.toMatch(/^source/m);
  });

  it('refuses a release archive whose SHA-256 is not the pinned one, and installs nothing', async () => {
    // The network is the seam: a curl first on PATH that serves an archive of other bytes.
    const fakeBin = join(work, 'fake-bin');
    mkdirSync(fakeBin);
    writeFileSync(
      join(fakeBin, 'curl'),
      '#!/usr/bin/env bash\nwhile (($#)); do [[ $1 == -o ]] && printf tampered >"$2"; shift; done\n',
      { mode: 0o755 },
    );
    const tampered = join(work, 'tampered');
    const env = { ...process.env, PATH: `${fakeBin}:${process.env['PATH'] ?? ''}` };
    const result = await runFile('bash', [script, tampered], { env });

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /has SHA-256 [0-9a-f]{64}, not the pinned [0-9a-f]{64}: refusing it/,
    );
    expect(readdirSync(join(tampered, 'bin'))).toEqual([]);
  });

  it('--check fails on a PREFIX without the tools, naming what is missing', async () => {
    const empty = await runFile('bash', [script, '--check', join(work, 'empty')]);
    expect(empty.code).toBe(1);
    expect(empty.stdout).toMatch(/^missing kustomize /m);
    expect(empty.stdout).toMatch(/^missing helm /m);
    // install-tools calls it optional; the image needs it.
    expect(empty.stdout).toMatch(/^missing kustomize-server /m);
    expect(empty.stdout).toMatch(/^missing helm-server /m);
  });
});
