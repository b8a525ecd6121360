/**
 * The CLI as `npm run build` ships it: rolldown.config.js's bundle, built into a scratch
 * install (bin/fluxlens.js, package.json, dist/cli/, node_modules linked) and run through
 * bin/fluxlens.js. It must answer as the sources do, and load the service's packages only
 * for action; serve and worker run from tsc's output (workers/), so their help alone is here.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli, type CliRun } from '../support/cli.js';
import { projectRoot } from '../support/paths.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  repositoryChartRelease,
  type TestRepo,
  yamlStream,
} from '../support/repo.js';
import { appClaim, appConfigMap } from '../support/app-objects.js';
import { findTool } from '../support/tools.js';

const scratch: string[] = [];
let install: string;
let fleet: TestRepo;

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** A folder laid out as an installed fluxlens, with `files` in it besides bin/fluxlens.js. */
function scratchInstall(files: Record<string, string> = {}): string {
  const root = tempDir('fluxlens-install-');
  mkdirSync(join(root, 'bin'));
  copyFileSync(join(projectRoot, 'bin', 'fluxlens.js'), join(root, 'bin', 'fluxlens.js'));
  copyFileSync(join(projectRoot, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(projectRoot, 'node_modules'), join(root, 'node_modules'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** bin/fluxlens.js of `root` in a process of its own, with a render cache of its own. */
function fluxlens(root: string, args: string[]): CliRun {
  const run = spawnSync(process.execPath, [join(root, 'bin', 'fluxlens.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, FLUXLENS_CACHE_DIR: join(root, 'cache') },
    timeout: 60_000,
  });
  if (run.error) throw run.error;
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

const chart = {
  'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
  'charts/web/values.yaml': 'replicas: 1\nimage: nginx:1.27\n',
  'charts/web/templates/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: { app: {{ .Release.Name }} }
  template:
    metadata:
      labels: { app: {{ .Release.Name }} }
    spec:
      containers:
        - name: web
          image: {{ .Values.image }}
`,
};

const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'app-secret', namespace: 'apps' },
  stringData: { password: 'hunter2-bundle' },
};

const release = (image: string) =>
  repositoryChartRelease('web', 'apps', './charts/web', { values: { image } });

beforeAll(() => {
  for (const tool of ['kustomize', 'helm']) {
    expect(findTool(tool), `${tool} (scripts/install-tools)`).toBeDefined();
  }
  install = scratchInstall();
  const rolldown = spawnSync(
    join(projectRoot, 'node_modules', '.bin', 'rolldown'),
    ['-c', 'rolldown.config.js', '--dir', join(install, 'dist', 'cli')],
    { cwd: projectRoot, encoding: 'utf8', timeout: 120_000 },
  );
  if (rolldown.status !== 0) {
    throw new Error(`rolldown failed:\n${rolldown.stdout}${rolldown.stderr}`);
  }

  // main: a chart release, a ConfigMap, a claim and a Secret; `change` edits the ConfigMap,
  // bumps the release's image and deletes the claim (a danger finding).
  fleet = makeRepo(
    {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yamlStream(fluxKustomization('apps', './apps')),
      'apps/config.yaml': yamlStream(appConfigMap('red'), secret),
      'apps/data.yaml': yamlStream(appClaim),
      'apps/web.yaml': yamlStream(release('nginx:1.27')),
      ...chart,
    },
    { git: true },
  );
  fleet.commit('base');
  fleet.write({
    'apps/config.yaml': yamlStream(appConfigMap('blue'), secret),
    'apps/web.yaml': yamlStream(release('nginx:1.28')),
  });
  rmSync(join(fleet.dir, 'apps/data.yaml'));
  execGit('checkout', '-q', '-b', 'change');
  fleet.commit('change');
  execGit('checkout', '-q', 'main');
});

afterAll(() => {
  fleet.remove();
  scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

function execGit(...args: string[]): void {
  const run = spawnSync('git', ['-C', fleet.dir, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: fleet.dir, GIT_CONFIG_NOSYSTEM: '1' },
  });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
}

/** An analysis as JSON without `timings`, the one part that differs from run to run. */
function analysisOf(stdout: string): Record<string, unknown> {
  const analysis = z.record(z.string(), z.unknown()).parse(JSON.parse(stdout));
  return Object.fromEntries(Object.entries(analysis).filter(([key]) => key !== 'timings'));
}

describe('the bundled CLI', () => {
  it('renders a repository to the same JSON as the sources', async () => {
    const args = ['render', '--repo', fleet.dir, '--output', 'json'];
    const bundled = fluxlens(install, args);
    const sources = await runCli(args);
    expect(bundled.stderr).toBe(sources.stderr);
    expect(bundled.code).toBe(0);
    expect(sources.code).toBe(0);
    const output = z
      .object({ errors: z.array(z.unknown()) })
      .loose()
      .parse(JSON.parse(bundled.stdout));
    expect(output.errors).toEqual([]);
    expect(output).toEqual(JSON.parse(sources.stdout));
    expect(bundled.stdout).toContain('"kind": "Deployment"');
    expect(bundled.stdout).not.toContain('hunter2-bundle');
  });

  it('diffs two revisions to the same analysis and exit code as the sources', async () => {
    const args = ['diff', '--repo', fleet.dir, '--base', 'main', '--head', 'change'];
    const bundled = fluxlens(install, [...args, '--format', 'json']);
    const sources = await runCli([...args, '--format', 'json']);
    expect(bundled.stderr).toBe(sources.stderr);
    expect(bundled.code).toBe(1);
    expect(sources.code).toBe(1);
    expect(analysisOf(bundled.stdout)).toEqual(analysisOf(sources.stdout));
    expect(bundled.stdout).toContain('app-data');
    expect(bundled.stdout).toContain('nginx:1.28');
  });

  it('prints the same Markdown report as the sources', async () => {
    const args = ['diff', '--repo', fleet.dir, '--base', 'main', '--head', 'change'];
    const bundled = fluxlens(install, args);
    expect(bundled).toEqual(await runCli(args));
  });

  it("prints package.json's version as the sources do", async () => {
    const bundled = fluxlens(install, ['--version']);
    const { version } = z
      .object({ version: z.string() })
      .parse(JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')));
    expect(bundled).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(bundled).toEqual(await runCli(['--version']));
  });

  it.each(['--help', 'render --help', 'diff --help', 'worker --help'])(
    'prints the usage of `fluxlens %s` as the sources do',
    async (line) => {
      const argv = line.split(' ');
      const bundled = fluxlens(install, argv);
      expect(bundled.code).toBe(0);
      expect(bundled.stdout).toMatch(/^Usage: fluxlens /);
      expect(bundled).toEqual(await runCli(argv));
    },
  );

  it.each(['serve', 'action'])(
    'prints the usage of `fluxlens %s` as the sources do',
    async (command) => {
      const bundled = fluxlens(install, [command, '--help']);
      expect(bundled.code).toBe(0);
      expect(bundled.stdout).toMatch(new RegExp(`^Usage: fluxlens ${command} \\[options\\]\n`));
      expect(bundled).toEqual(await runCli([command, '--help']));
    },
  );
});

const SourceMap = z.object({ sources: z.array(z.string()) });

/** npm packages whose modules `chunk` and the chunks it imports statically hold. */
function packagesLoadedBy(dir: string, chunk: string, seen = new Set<string>()): Set<string> {
  const packages = new Set<string>();
  if (seen.has(chunk)) return packages;
  seen.add(chunk);
  const map = join(dir, `${chunk}.map`);
  // The runtime helpers' chunk has no source of its own, so no map.
  const sources = existsSync(map) ? SourceMap.parse(JSON.parse(readFileSync(map, 'utf8'))) : null;
  for (const source of sources?.sources ?? []) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1];
    if (name !== undefined) packages.add(name);
  }
  const code = readFileSync(join(dir, chunk), 'utf8');
  for (const [, imported] of code.matchAll(/^import\s(?:[^"']*\sfrom\s)?"\.\/([^"]+)";$/gm)) {
    if (imported !== undefined)
      packagesLoadedBy(dir, imported, seen).forEach((p) => packages.add(p));
  }
  return packages;
}

describe('the bundle', () => {
  it('loads the packages of a command only when it runs, and none of the service', () => {
    const dir = join(install, 'dist', 'cli');
    const chunks = readdirSync(dir).filter((file) => file.endsWith('.js'));
    const commandChunk = (command: string) => {
      const chunk = chunks.find((file) => file.startsWith(`${command}-command-`));
      if (chunk === undefined) throw new Error(`no chunk of ${command} in ${chunks.join(', ')}`);
      return chunk;
    };
    // --version and --help: the entry and what it imports statically.
    expect([...packagesLoadedBy(dir, 'index.js')]).toEqual([]);
    // diff loads the renderer only when no analysis was kept for its question.
    const analyzing = chunks.find((file) => file.startsWith('analyze-revisions-'));
    if (analyzing === undefined) throw new Error(`no analysis chunk in ${chunks.join(', ')}`);
    const diff = packagesLoadedBy(dir, commandChunk('diff'));
    expect([...diff]).toEqual(expect.arrayContaining(['zod', 'execa']));
    for (const renderer of ['yaml', 'semver']) expect(diff.has(renderer), renderer).toBe(false);
    const loadedBy = {
      diff: new Set([...diff, ...packagesLoadedBy(dir, analyzing)]),
      render: packagesLoadedBy(dir, commandChunk('render')),
    };
    for (const [command, loaded] of Object.entries(loadedBy)) {
      expect([...loaded]).toEqual(expect.arrayContaining(['yaml', 'zod', 'execa', 'semver']));
      for (const service of ['fastify', 'bullmq', '@octokit/rest', 'pino', 'prom-client']) {
        expect(loaded.has(service), `${command}: ${service}`).toBe(false);
      }
    }
    // The Action writes its comment through Octokit; the queue and Redis are the service's.
    const action = packagesLoadedBy(dir, commandChunk('action'));
    expect([...action]).toEqual(expect.arrayContaining(['@octokit/rest']));
    expect(action.has('bullmq'), 'bullmq').toBe(false);
    const all = new Set(chunks.flatMap((chunk) => [...packagesLoadedBy(dir, chunk)]));
    // The HTTP server and its logs are serve's and the worker's, which run from tsc's output.
    for (const name of ['fastify', 'pino']) expect(all.has(name), name).toBe(false);
    // Loaded from node_modules: they find files next to themselves (rolldown.config.js).
    for (const external of ['ioredis', 'msgpackr-extract']) {
      expect(all.has(external), external).toBe(false);
    }
    // Nor imported from there.
    for (const chunk of chunks) {
      expect(readFileSync(join(dir, chunk), 'utf8'), chunk).not.toMatch(/^import "ioredis";$/m);
    }
  });
  it("carries the queue's Lua scripts beside its chunks, which read them when they load", () => {
    const sources = join(projectRoot, 'src', 'queue', 'lua');
    const bundled = join(install, 'dist', 'cli', 'lua');
    const names = readdirSync(sources).sort();
    expect(names).toContain('enqueue.lua');
    expect(readdirSync(bundled).sort()).toEqual(names);
    for (const name of names) {
      expect(readFileSync(join(bundled, name), 'utf8')).toBe(
        readFileSync(join(sources, name), 'utf8'),
      );
    }
  });
});

describe('bin/fluxlens.js', () => {
  it("falls back to tsc's output when no bundle was built", () => {
    // Stands in for tsc's CLI module: compiling the project would outlast this whole file.
    const stub = `export async function main(argv) {
  process.stdout.write('tsc output: ' + argv.join(' ') + '\\n');
  return 3;
}
`;
    const root = scratchInstall({ 'dist/src/cli/index.js': stub });
    expect(fluxlens(root, ['render', '--help'])).toEqual({
      code: 3,
      stdout: 'tsc output: render --help\n',
      stderr: '',
    });
  });
});
