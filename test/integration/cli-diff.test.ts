/**
 * `fluxlens diff` as a user runs it: main() in-process with captured output, over real git
 * repositories rendered with real kustomize.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { bootstrap, makeRepo, type TestRepo, yamlStream } from '../support/repo.js';

const cli = runCli;

const yaml = yamlStream;

function configMap(name: string, data: Record<string, string>): object {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'apps' }, data };
}

const claim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'app-data', namespace: 'apps' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};

const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();

let fleet: TestRepo;
const scratch: string[] = [];

/**
 * main: a ConfigMap and a PersistentVolumeClaim. Branch `tweak` changes the ConfigMap (no
 * finding); branch `drop-claim` deletes the claim (a danger finding); `strict-policy` is
 * main plus a policy that fails on caution.
 */
beforeAll(() => {
  fleet = makeRepo(
    {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/config.yaml': yaml(configMap('app-config', { color: 'red' })),
      'clusters/prod/data.yaml': yaml(claim),
    },
    { git: true },
  );
  fleet.commit('base');
  git(fleet.dir, 'checkout', '-q', '-b', 'tweak');
  fleet.write({ 'clusters/prod/config.yaml': yaml(configMap('app-config', { color: 'blue' })) });
  fleet.commit('tweak');
  git(fleet.dir, 'checkout', '-q', '-b', 'drop-claim', 'main');
  rmSync(join(fleet.dir, 'clusters/prod/data.yaml'));
  fleet.commit('drop the claim');
  git(fleet.dir, 'checkout', '-q', '-b', 'lenient-policy', 'main');
  fleet.write({ '.fluxlens.yaml': 'failOn: never\n' });
  fleet.commit('never fail');
  git(fleet.dir, 'checkout', '-q', '-b', 'lenient-drop', 'lenient-policy');
  rmSync(join(fleet.dir, 'clusters/prod/data.yaml'));
  fleet.commit('drop the claim under a lenient policy');
  git(fleet.dir, 'checkout', '-q', '-b', 'broken-policy', 'main');
  fleet.write({ '.fluxlens.yaml': 'clusters:\n  - name: prod\n' });
  fleet.commit('break the policy');
  git(fleet.dir, 'checkout', '-q', '-b', 'after-broken-policy', 'broken-policy');
  fleet.write({ 'clusters/prod/config.yaml': yaml(configMap('app-config', { color: 'green' })) });
  fleet.commit('change under a broken policy');
  git(fleet.dir, 'checkout', '-q', 'main');
});

afterAll(() => {
  fleet.remove();
  scratch.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const diff = (...args: string[]) => cli(['diff', '--repo', fleet.dir, ...args]);

describe('fluxlens diff', () => {
  it('prints the Markdown report and exits 0 when no finding reaches failOn', async () => {
    const run = await diff('--base', 'main', '--head', 'tweak');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('app-config');
    expect(run.stdout).not.toContain('app-data');
    expect(run.stderr).toMatch(
      /^fluxlens: comparing head [0-9a-f]{12} \(tweak\) with base [0-9a-f]{12}, its merge-base with --base main\n$/,
    );
  });

  it('exits 1 when a finding reaches the default failOn (danger)', async () => {
    const run = await diff('--base', 'main', '--head', 'drop-claim');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('app-data');
  });

  it.each([
    ['never', 'drop-claim', 0],
    ['danger', 'drop-claim', 1],
    ['info', 'drop-claim', 1],
    ['info', 'tweak', 0],
  ])('with --fail-on %s, %s exits %i', async (failOn, head, code) => {
    const run = await diff('--base', 'main', '--head', head, '--fail-on', failOn);
    expect(run.code).toBe(code);
  });

  it("takes failOn from the base's policy, and --fail-on over it", async () => {
    const base = ['--base', 'lenient-policy', '--head', 'lenient-drop'];
    expect((await diff(...base)).code).toBe(0);
    expect((await diff(...base, '--fail-on', 'danger')).code).toBe(1);
  });

  it('compares with the merge-base of the upstream default branch when --base is absent', async () => {
    const run = await diff('--head', 'tweak');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'its merge-base with main (no origin/HEAD; first of origin/main, origin/master, main, master)',
    );
  });

  it('writes the report to --output FILE and nothing to stdout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fluxlens-out-'));
    scratch.push(dir);
    const file = join(dir, 'report.json');
    const run = await diff(
      '--base',
      'main',
      '--head',
      'drop-claim',
      '--format',
      'json',
      '--output',
      file,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const written: unknown = JSON.parse(readFileSync(file, 'utf8'));
    expectValidAnalysis(written);
  });

  it.each([
    ['json', (out: string) => expect(JSON.parse(out)).toMatchObject({ schemaVersion: 1 })],
    ['markdown', (out: string) => expect(out).toContain('app-config')],
    ['text', (out: string) => expect(out).toContain('app-config')],
    ['html', (out: string) => expect(out.toLowerCase()).toMatch(/^<!doctype html>/)],
  ])('prints the %s format', async (format, check) => {
    const run = await diff('--base', 'main', '--head', 'tweak', '--format', format);
    expect(run.code).toBe(0);
    check(run.stdout);
  });

  it('reviews the whole repository when --repo is one of its subfolders', async () => {
    const apps = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'apps', namespace: 'flux-system' },
      spec: {
        interval: '10m',
        path: './apps',
        prune: true,
        sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      },
    };
    const repo = makeRepo(
      {
        'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/apps.yaml': yaml(apps),
        'apps/config.yaml': yaml(configMap('app-config', { color: 'red' })),
      },
      { git: true },
    );
    scratch.push(repo.dir);
    repo.commit('base');
    git(repo.dir, 'checkout', '-q', '-b', 'pr');
    repo.write({ 'apps/config.yaml': yaml(configMap('app-config', { color: 'blue' })) });
    repo.commit('pull request');
    const args = ['--base', 'main', '--head', 'pr', '--format', 'json'];
    const top = await cli(['diff', '--repo', repo.dir, ...args]);
    const sub = await cli(['diff', '--repo', join(repo.dir, 'clusters'), ...args]);
    const result = (run: CliRun) => ({ ...(JSON.parse(run.stdout) as object), timings: {} });
    expect(result(sub)).toEqual(result(top));
    expect(result(sub)).toMatchObject({ errors: [], summary: { changed: 1 } });
    // --path is taken from where --repo points, as git takes paths.
    const fromSub = await cli([
      'diff',
      '--repo',
      join(repo.dir, 'clusters'),
      '--path',
      'prod',
      ...args,
    ]);
    const fromTop = await cli(['diff', '--repo', repo.dir, '--path', 'clusters/prod', ...args]);
    expect(result(fromSub)).toEqual(result(fromTop));
    expect(result(fromSub)).toMatchObject({ clusters: [{ path: 'clusters/prod' }] });
  });

  it('answers at once when base and head are the same commit', async () => {
    const run = await diff('--base', 'main', '--head', 'main', '--format', 'json');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as {
      verdict: { headline: string; level: string };
      clusters: unknown[];
      timings: Record<string, number>;
    };
    expect(result.verdict).toMatchObject({ level: 'none' });
    expect(result.verdict.headline).toMatch(
      /^Nothing to compare: the head is its base \([0-9a-f]{12}\)$/,
    );
    expect(result.clusters).toEqual([]);
    expect(Object.keys(result.timings)).not.toContain('render-base');
  });

  it('colours the text report only on a terminal', async () => {
    const args = ['--base', 'main', '--head', 'drop-claim', '--format', 'text'];
    const piped = await diff(...args);
    const terminal = await cli(['diff', '--repo', fleet.dir, ...args], { stdoutIsTTY: true });
    expect(piped.stdout).not.toContain('\u001b[');
    expect(terminal.stdout).toContain('\u001b[');
  });

  it.each([
    [['--format', 'pdf'], "--format must be one of markdown, json, text, html, got 'pdf'"],
    [
      ['--fail-on', 'always'],
      "--fail-on must be one of info, caution, danger, never, got 'always'",
    ],
    [['--engine', 'argo'], "--engine must be one of builtin, flux-local, got 'argo'"],
    [
      ['--path', '../elsewhere'],
      "--path must be a folder inside the repository, got '../elsewhere'",
    ],
    [['--base', 'no-such-branch'], "cannot resolve revision 'no-such-branch'"],
    [['--head', 'no-such-branch'], "cannot resolve revision 'no-such-branch'"],
    [['--bogus'], "unknown option '--bogus'"],
    [['--fromat', 'json'], "unknown option '--fromat'; did you mean --format?"],
    [['--base', 'main', '--path', 'apps'], "cluster 'apps': 'apps' is not a folder at base"],
  ])('exits 2 for %j', async (args, message) => {
    const run = await diff('--head', 'tweak', ...args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });

  it("exits 2 with the field when the base's policy is malformed", async () => {
    const run = await diff('--base', 'broken-policy', '--head', 'after-broken-policy');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('fluxlens: .fluxlens.yaml: clusters.0.path: required\n');
  });

  it('exits 2 outside a git repository', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fluxlens-plain-'));
    scratch.push(dir);
    const run = await cli(['diff', '--repo', dir, '--base', 'main']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("cannot resolve revision 'HEAD'");
  });

  it('exits 2 when the report cannot be written', async () => {
    const run = await diff(
      '--base',
      'main',
      '--head',
      'tweak',
      '--output',
      join(fleet.dir, 'no', 'such', 'dir', 'r.md'),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('cannot write');
  });

  it('advises --base when the head shares no history with the base', async () => {
    const lonely = makeRepo(
      { 'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod') },
      { git: true },
    );
    scratch.push(lonely.dir);
    lonely.commit('main');
    git(lonely.dir, 'checkout', '-q', '--orphan', 'unrelated');
    lonely.commit('unrelated history');
    const run = await cli(['diff', '--repo', lonely.dir, '--base', 'main', '--head', 'unrelated']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /have no common ancestor; pass --base with a revision on the same history\n$/,
    );
  });

  it('advises --base when no default branch can be found', async () => {
    const lonely = makeRepo(
      { 'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod') },
      { git: true },
    );
    scratch.push(lonely.dir);
    lonely.commit('trunk only');
    git(lonely.dir, 'branch', '-q', '-m', 'trunk');
    const run = await cli(['diff', '--repo', lonely.dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('cannot find the default branch');
    expect(run.stderr).toMatch(/; pass --base REV\n$/);
  });

  it('documents the diff command in --help', async () => {
    const run = await cli(['diff', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('fluxlens diff [--repo DIR] [--base REV] [--head REV]');
    expect(run.stdout).toContain('--fail-on LEVEL');
  });
});
