/**
 * `fluxlens render` as a user runs it: main() in-process with captured output and real
 * kustomize and git, plus one run of the built binary.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { runCli, type CliRun } from '../support/cli.js';
import { projectRoot } from '../support/paths.js';
import { bootstrap, makeRepo, type RepoFiles, type TestRepo } from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

function repo(files: RepoFiles, options: { git?: boolean } = {}): TestRepo {
  const made = makeRepo(files, options);
  repos.push(made);
  return made;
}

const cli = runCli;

const yaml = (...docs: object[]): string => docs.map((d) => stringify(d)).join('---\n');

function ks(name: string, spec: Record<string, unknown>): object {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      interval: '10m',
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      ...spec,
    },
  };
}

function configMap(name: string, data: Record<string, string>): object {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'apps' }, data };
}

/** flux-system renders clusters/prod: `apps` (healthy, suspended, depends on infra) and `broken`. */
function fleet(): RepoFiles {
  return {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': yaml(
      ks('apps', { path: './apps', suspend: true, dependsOn: [{ name: 'infra' }] }),
    ),
    'clusters/prod/broken.yaml': yaml(ks('broken', { path: './nowhere', prune: true })),
    'apps/config.yaml': yaml(
      configMap('app-config', { color: 'red' }),
      configMap('other-config', { size: 'L' }),
    ),
    'apps/secret.yaml': yaml({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'app-secret', namespace: 'apps' },
      stringData: { password: 'hunter2-cli' },
    }),
  };
}

interface JsonOutput {
  schemaVersion: number;
  producers: Record<string, unknown>[];
  objects: {
    producer: Record<string, unknown>;
    file?: string;
    manifest: Record<string, unknown>;
  }[];
  errors: { producer: Record<string, unknown>; file?: string; message: string }[];
}

const nameOf = (manifest: Record<string, unknown>): unknown =>
  (manifest['metadata'] as Record<string, unknown>)['name'];

describe('fluxlens render', () => {
  it('prints producers, objects and errors as JSON and exits 0 when a producer failed', async () => {
    const { dir } = repo(fleet());
    const run = await cli(['render', '--repo', dir, '--output', 'json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('fluxlens: 1 render error (see errors in the output)\n');
    const out = JSON.parse(run.stdout) as JsonOutput;
    expect(out.schemaVersion).toBe(1);
    expect(out.producers).toEqual([
      {
        kind: 'Kustomization',
        namespace: 'flux-system',
        name: 'apps',
        path: 'apps',
        source: 'GitRepository/flux-system/flux-system',
        suspend: true,
        prune: false,
        dependsOn: [{ kind: 'Kustomization', namespace: 'flux-system', name: 'infra' }],
      },
      {
        kind: 'Kustomization',
        namespace: 'flux-system',
        name: 'broken',
        path: 'nowhere',
        source: 'GitRepository/flux-system/flux-system',
        suspend: false,
        prune: true,
        dependsOn: [],
        error: "path 'nowhere' not found",
      },
      {
        kind: 'Kustomization',
        namespace: 'flux-system',
        name: 'flux-system',
        path: 'clusters/prod',
        source: 'GitRepository/flux-system/flux-system',
        suspend: false,
        prune: true,
        dependsOn: [],
      },
    ]);
    expect(out.errors).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'broken' },
        file: 'clusters/prod/broken.yaml',
        message: "path 'nowhere' not found",
      },
    ]);
    const appConfig = out.objects.find((o) => nameOf(o.manifest) === 'app-config');
    expect(appConfig).toMatchObject({
      producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
      file: 'apps/config.yaml',
      manifest: { kind: 'ConfigMap', data: { color: 'red' } },
    });
    const brokenKs = out.objects.find((o) => nameOf(o.manifest) === 'broken');
    expect(brokenKs).toMatchObject({
      producer: { name: 'flux-system' },
      file: 'clusters/prod/broken.yaml',
    });
    const secret = out.objects.find((o) => nameOf(o.manifest) === 'app-secret');
    expect(secret?.manifest['stringData']).toEqual({ password: '<redacted>' });
    expect(run.stdout).not.toContain('hunter2-cli');
  });

  it('says on stderr which producers a YAML stream leaves out, and why', async () => {
    const { dir } = repo(fleet());
    const run = await cli(['render', '--repo', dir]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'fluxlens: 1 render error:\n' +
        "  Kustomization flux-system/broken (clusters/prod/broken.yaml): path 'nowhere' not found\n",
    );
  });

  it('prints a YAML stream of parseable documents in a stable order', async () => {
    const { dir } = repo(fleet());
    const first = await cli(['render', '--repo', dir, '--output', 'yaml']);
    const second = await cli(['render', '--repo', dir]);
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const docs = parseAllDocuments(first.stdout);
    expect(Array.isArray(docs)).toBe(true);
    const parsed = (Array.isArray(docs) ? docs : []).map((d) => {
      expect(d.errors).toEqual([]);
      return d.toJS() as Record<string, unknown>;
    });
    // apps' objects, then flux-system's; broken produced nothing.
    expect(parsed.map((m) => `${String(m['kind'])}/${String(nameOf(m))}`)).toEqual([
      'ConfigMap/app-config',
      'ConfigMap/other-config',
      'Secret/app-secret',
      'Kustomization/apps',
      'Kustomization/broken',
      'Kustomization/flux-system',
      'GitRepository/flux-system',
    ]);
    expect(first.stdout.startsWith('---\n')).toBe(true);
    expect(first.stdout).not.toContain('hunter2-cli');
  });

  it.each([
    { problem: 'an unknown option', args: ['--bogus'], reason: "unknown option '--bogus'" },
    {
      problem: 'a mistyped option',
      args: ['--ouptut', 'json'],
      reason: "unknown option '--ouptut'; did you mean --output?",
    },
    {
      problem: 'an unknown engine',
      args: ['--engine', 'bogus'],
      reason: "--engine must be one of builtin, flux-local, got 'bogus'",
    },
    {
      problem: 'an unknown output format',
      args: ['--output', 'bogus'],
      reason: "--output must be yaml or json, got 'bogus'",
    },
    {
      problem: 'an entry path outside the repository',
      args: ['--path', '../x'],
      reason: "--path must be a folder inside the repository, got '../x'",
    },
    {
      problem: 'an entry path that is not a folder',
      args: ['--path', 'nope'],
      reason: "entry path 'nope' is not a folder",
    },
  ])('exits 2 with a one-line reason for $problem', async ({ args, reason }) => {
    const { dir } = repo(fleet());
    const run = await cli(['render', '--repo', dir, ...args]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^fluxlens: [^\n]+\n$/);
    expect(run.stderr).toContain(reason);
  });

  it('exits 2 for a repository without Flux objects', async () => {
    const { dir } = repo({ 'manifests/cm.yaml': yaml(configMap('lonely', { a: 'b' })) });
    const run = await cli(['render', '--repo', dir]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: "fluxlens: no Flux Kustomization or HelmRelease found under '.'\n",
    });
  });

  it('exits 2 for a repository folder that does not exist', async () => {
    const missing = mkdtempSync(join(tmpdir(), 'fluxlens-gone-'));
    rmSync(missing, { recursive: true });
    const run = await cli(['render', '--repo', missing]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `fluxlens: repository '${missing}' is not a folder\n`,
    });
  });

  describe('--rev', () => {
    let git: TestRepo;
    let first: string;
    const files = (color: string): RepoFiles => ({
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yaml(ks('apps', { path: './apps' })),
      'apps/config.yaml': yaml(configMap('app-config', { color })),
    });
    beforeAll(() => {
      git = repo(files('red'), { git: true });
      first = git.commit('red');
      git.write(files('blue'));
      git.commit('blue');
      git.write(files('green')); // not committed
    });

    const colorOf = (run: CliRun): unknown => {
      const out = JSON.parse(run.stdout) as JsonOutput;
      const cm = out.objects.find((o) => nameOf(o.manifest) === 'app-config');
      return (cm?.manifest['data'] as Record<string, unknown> | undefined)?.['color'];
    };

    it.each([
      { what: 'the files on disk without --rev', rev: [], color: 'green' },
      { what: 'a commit by SHA', rev: ['--rev', 'FIRST'], color: 'red' },
      { what: 'a branch', rev: ['--rev', 'main'], color: 'blue' },
    ])('renders $what', async ({ rev, color }) => {
      const args = rev.map((a) => (a === 'FIRST' ? first : a));
      const run = await cli(['render', '--repo', git.dir, '--output', 'json', ...args]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(colorOf(run)).toBe(color);
    });

    it('renders a revision from the top of the repository when --repo is a subfolder', async () => {
      const sub = join(git.dir, 'apps');
      const run = await cli(['render', '--repo', sub, '--rev', 'main', '--output', 'json']);
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as JsonOutput).errors).toEqual([]);
      expect(colorOf(run)).toBe('blue');
    });

    it('exits 2 for a revision that does not exist', async () => {
      const run = await cli(['render', '--repo', git.dir, '--rev', 'no-such-branch']);
      expect(run).toEqual({
        code: 2,
        stdout: '',
        stderr: `fluxlens: cannot resolve revision 'no-such-branch' in '${git.dir}': fatal: Needed a single revision\n`,
      });
    });
  });

  it('reads a mapped source from --source NAME=DIR', async () => {
    const { dir } = repo({
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/platform.yaml': yaml(
        {
          apiVersion: 'source.toolkit.fluxcd.io/v1',
          kind: 'GitRepository',
          metadata: { name: 'platform', namespace: 'flux-system' },
          spec: {
            interval: '1m',
            url: 'https://example.com/platform.git',
            ref: { branch: 'main' },
          },
        },
        ks('platform', {
          path: './deploy',
          sourceRef: { kind: 'GitRepository', name: 'platform' },
        }),
      ),
    });
    const other = repo({ 'deploy/cm.yaml': yaml(configMap('from-platform', { a: 'b' })) });

    const unmapped = JSON.parse(
      (await cli(['render', '--repo', dir, '--output', 'json'])).stdout,
    ) as JsonOutput;
    expect(unmapped.producers.find((p) => p['name'] === 'platform')).toMatchObject({
      skipped: expect.stringContaining('--source platform=DIR'),
    });
    expect(unmapped.objects.find((o) => nameOf(o.manifest) === 'from-platform')).toBeUndefined();

    const run = await cli([
      'render',
      '--repo',
      dir,
      '--output',
      'json',
      '--source',
      `platform=${other.dir}`,
    ]);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as JsonOutput;
    const platform = out.producers.find((p) => p['name'] === 'platform');
    expect(platform).toMatchObject({
      source: 'GitRepository/flux-system/platform',
      path: 'deploy',
    });
    expect(platform).not.toHaveProperty('skipped');
    expect(platform).not.toHaveProperty('error');
    expect(out.objects.find((o) => nameOf(o.manifest) === 'from-platform')).toMatchObject({
      producer: { name: 'platform' },
      file: 'GitRepository/flux-system/platform:deploy/cm.yaml',
    });
  });

  it('exits 2 for a --source without NAME=DIR', async () => {
    const { dir } = repo(fleet());
    const run = await cli(['render', '--repo', dir, '--source', 'platform']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: "fluxlens: --source must look like NAME=DIR, got 'platform'\n",
    });
  });

  it.each([
    { terminal: false, progress: false },
    { terminal: true, progress: true },
  ])('shows progress only on a terminal (isTTY $terminal)', async ({ terminal, progress }) => {
    const { dir } = repo(fleet());
    const run = await cli(['render', '--repo', dir], { isTTY: terminal });
    expect(run.code).toBe(0);
    if (progress) expect(run.stderr).toMatch(/rendering \d+\/3 producers/);
    else expect(run.stderr).not.toContain('rendering');
  });

  it.each([[['--help']], [['-h']], [[]]])('prints usage and exits 0 for %j', async (argv) => {
    const run = await cli(argv);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^Usage: fluxlens <command> \[options\]\n/);
    expect(run.stdout).toContain('--output FORMAT         yaml (default) or json');
  });

  it.each([
    ['render', '--output FORMAT         yaml (default) or json', '--format FORMAT'],
    ['diff', '--format FORMAT', '--output FORMAT         yaml (default) or json'],
    ['action', 'GITHUB_* variables', '--format FORMAT'],
  ])('prints only the help of %s for its --help', async (command, own, other) => {
    const run = await cli([command, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: fluxlens ${command} \\[options\\]\n`));
    expect(run.stdout).toContain(own);
    expect(run.stdout).not.toContain(other);
    expect(run.stdout).toContain('Exit codes:');
  });

  it('exits 2 for an unknown command, with the command that was meant', async () => {
    const run = await cli(['rendr']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: "fluxlens: unknown command 'rendr'; did you mean 'render'?\n",
    });
    expect((await cli(['frobnicate'])).stderr).toBe(
      "fluxlens: unknown command 'frobnicate' (see fluxlens --help)\n",
    );
  });
});

describe('the built binary', () => {
  beforeAll(() => {
    try {
      execFileSync('npm', ['run', 'build'], { cwd: projectRoot, encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      const { stdout, stderr } = err as { stdout?: string; stderr?: string };
      throw new Error(`npm run build failed:\n${stdout ?? ''}${stderr ?? ''}`);
    }
  }, 180_000);

  it('prints usage for --help and exits 0', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fluxlens-bin-'));
    try {
      // execFileSync throws on a non-zero exit, so returning is exit 0.
      const stdout = execFileSync(
        process.execPath,
        [join(projectRoot, 'bin', 'fluxlens.js'), '--help'],
        {
          cwd,
          encoding: 'utf8',
        },
      );
      expect(stdout).toMatch(/^Usage: fluxlens <command> \[options\]\n/);
      expect(stdout).toContain(
        'render    Render a Flux repository into the objects Flux would apply',
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
