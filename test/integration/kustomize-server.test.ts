/**
 * kustomize-server against the kustomize binary: the same folders built both ways must give
 * byte-identical output, or the same error text (the message a user reads after "kustomize
 * build failed: "), built one at a time or many at once. And the server keeps the tool
 * runner's bounds: a timeout, an output cap, a cancel, a process that dies.
 *
 * The server is built from tools/kustomize-server with Go, so what is tested is the source
 * as it stands; without Go, the installed one (scripts/install-tools kustomize-server) is
 * tested; with neither, the tests skip, and fail under CI (CI=true).
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../bench/render/generate-fleet.js';
import { loadConfig } from '../../src/config.js';
import { CancelledError, classify } from '../../src/errors.js';
import { kustomizeBuildArgs } from '../../src/render/kustomize/build-args.js';
import { kustomizeBuild } from '../../src/render/kustomize/build.js';
import {
  KustomizeServer,
  type ServerBuildOptions,
} from '../../src/render/kustomize/kustomize-server.js';
import {
  ToolError,
  ToolRunner,
  describeCommand,
  type ServerExit,
  type ToolName,
} from '../../src/tool-runner.js';
import { projectRoot } from '../support/paths.js';
import { findTool } from '../support/tools.js';
import {
  FIXTURES,
  fixtureDir,
  sleepingPlugin,
  writeFixtures,
} from './kustomize-server-fixtures.js';

const SOURCES = join(projectRoot, 'tools', 'kustomize-server');
const config = loadConfig();
const go =
  findTool('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
const installed = findTool('kustomize-server');
const required = process.env['CI'] === 'true';
const OPTIONS = { allowRemoteBases: false, timeoutMs: 60_000, maxOutputBytes: 8 << 20 };

/** Every kustomization of test/fixtures, by its path there. */
function repositoryFixtures(dir = join(projectRoot, 'test', 'fixtures')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return repositoryFixtures(path);
    return entry.name === 'kustomization.yaml' ? [dirname(path)] : [];
  });
}

type Outcome = { yaml: string } | { error: string; code: string };

async function outcome(build: Promise<string>): Promise<Outcome> {
  try {
    return { yaml: await build };
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    return { error: err.message, code: err.code };
  }
}

/** Whether a process has ended (a zombie no parent has reaped yet counts as ended). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0);
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return true;
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** The pids a sleeping plugin wrote, once it has started: its shell's, and the server's. */
async function pidsOf(dir: string): Promise<{ shell: number; parent: number }> {
  const file = join(dir, 'pids');
  for (let i = 0; i < 300 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  const [shell, parent] = readFileSync(file, 'utf8').trim().split(' ').map(Number);
  return { shell: shell ?? 0, parent: parent ?? 0 };
}

if (go === undefined && installed === undefined && !required) {
  console.warn('kustomize-server: neither Go nor an installed kustomize-server; tests skipped');
}

describe('kustomize-server, against kustomize build', () => {
  if (go === undefined && installed === undefined) {
    it.skipIf(!required)('needs Go or scripts/install-tools kustomize-server', () => {
      throw new Error('neither Go nor kustomize-server is installed');
    });
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-kustomize-server-'));
  const root = join(work, 'fixtures');
  const repository = repositoryFixtures();
  const cases = [
    ...Object.keys(FIXTURES).map((name) => ({
      name,
      dir: fixtureDir(root, name),
      plugins: FIXTURES[name]?.plugins ?? false,
    })),
    ...repository.map((dir) => ({ name: dir.slice(projectRoot.length + 1), dir, plugins: false })),
  ];
  const expected = new Map<string, Outcome>();
  let runner: ToolRunner;
  let server: KustomizeServer;
  let bin = config.toolsBinDir;
  const options = (plugins: boolean, more: Partial<ServerBuildOptions> = {}) => ({
    ...OPTIONS,
    enableExecPlugins: plugins,
    ...more,
  });

  beforeAll(async () => {
    if (go !== undefined) {
      bin = join(work, 'bin');
      await promisify(execFile)(go, ['build', '-o', join(bin, 'kustomize-server'), '.'], {
        cwd: SOURCES,
        env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
      });
    }
    const path = [config.toolsBinDir, config.path].join(delimiter);
    runner = new ToolRunner({ toolsBinDir: bin, path, baseEnv: config.toolEnv });
    server = new KustomizeServer(runner);
    writeFixtures(root);
    for (const c of cases)
      expected.set(c.name, await outcome(kustomizeBuild(runner, c.dir, options(c.plugins))));
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it.each(cases)('builds $name as kustomize build does, output or error', async (c) => {
    const got = await outcome(server.build(c.dir, options(c.plugins)));
    expect(got).toEqual(expected.get(c.name));
  });

  it('compares builds that show each feature: errors in kustomize words, plugins, schemas', () => {
    const text = (name: string) => {
      const o = expected.get(name);
      return o === undefined ? '' : 'error' in o ? o.error : o.yaml;
    };
    expect(text('a missing resource')).toMatch(/failed with exit code 1: Error: accumulating/);
    expect(text('deprecated fields and a missing resource')).toMatch(
      /exit code 1: # Warning: 'commonLabels' is deprecated.*\n# Warning: 'vars' .*\nError: /,
    );
    expect(text('Helm charts with plugins off')).toMatch(/must specify --enable-helm/);
    expect(text('Helm charts with plugins on')).toMatch(/greeting: hello/);
    expect(text('exec plugin')).toMatch(/from: plugin/);
    expect(text('managed-by label and origins')).toMatch(/managed-by: kustomize-v5\.7\.1/);
    // Merged by the schema's key with it; without one the patch replaces the list.
    expect(text('own OpenAPI schema')).toMatch(/image: a:1/);
    expect(text('a kind without a schema, patched')).not.toMatch(/image: a:1/);
    expect(expected.get('no objects')).toEqual({ yaml: '' });
  });

  it('answers many builds at once, each with its own output', async () => {
    const many = [...cases, ...cases, ...cases];
    const got = await Promise.all(
      many.map((c) => outcome(server.build(c.dir, options(c.plugins)))),
    );
    expect(got).toEqual(many.map((c) => expected.get(c.name)));
  });

  it('fetches no remote base or file itself', async () => {
    const dir = join(work, 'remote');
    writeFixture(
      dir,
      'resources:\n- https://github.com/example/repo//deploy?ref=v1\n- https://example.com/x.yaml\n',
    );
    const got = await outcome(server.build(dir, options(false)));
    expect(got).toMatchObject({ code: 'tool' });
    expect('error' in got && got.error).toMatch(/transport 'https' not allowed/);
    writeFixture(dir, 'resources:\n- https://example.com/x.yaml\n');
    const file = await outcome(server.build(dir, options(false)));
    expect('error' in file && file.error).toMatch(/remote resources are disabled/);
  });

  it('refuses an output over the cap as the tool runner does', async () => {
    const dir = fixtureDir(root, 'resources');
    const capped = options(false, { maxOutputBytes: 100 });
    const got = await outcome(server.build(dir, capped));
    expect(got).toEqual(await outcome(kustomizeBuild(runner, dir, capped)));
    expect(got).toMatchObject({ code: 'tool', error: expect.stringMatching(/size cap$/) });
  });

  it('fails a build past its timeout as a kustomize timeout, and serves the others on', async () => {
    const stuck = sleepingPlugin(work, 'stuck', 60);
    const slow = sleepingPlugin(work, 'slow', 3);
    const stuckBuild = server.build(stuck, options(true, { timeoutMs: 1_500 }));
    const slowBuild = outcome(server.build(slow, options(true)));
    const err: unknown = await stuckBuild.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(classify(err)).toBe('transient');
    const command = describeCommand('kustomize', kustomizeBuildArgs(stuck, true));
    expect((err as ToolError).message).toBe(`${command} timed out`);
    const { shell, parent } = await pidsOf(stuck);
    expect(await gone(shell)).toBe(true);
    expect(await gone(parent)).toBe(true);
    // The slow build was moved to a fresh process; its plugin then ran without sleeping.
    expect(await slowBuild).toEqual({ yaml: expect.stringContaining('name: slow') });
    const next = fixtureDir(root, 'resources');
    expect(await outcome(server.build(next, options(false)))).toEqual(expected.get('resources'));
  });

  it('hands the builds of a server that died to the kustomize binary', async () => {
    const dir = sleepingPlugin(work, 'crash', 60);
    const build = outcome(server.build(dir, options(true)));
    const { parent } = await pidsOf(dir);
    process.kill(-parent, 'SIGKILL');
    const binary = await outcome(kustomizeBuild(runner, dir, options(true)));
    expect(await build).toEqual(binary);
    expect(binary).toEqual({ yaml: expect.stringContaining('name: crash') });
  });

  it('starts its process when warmed, before any build, and stops it when closed', async () => {
    const started: Array<Promise<ServerExit>> = [];
    class Watching extends ToolRunner {
      override async spawnServer(tool: ToolName, args: readonly string[]) {
        const process = await super.spawnServer(tool, args);
        started.push(process.exited);
        return process;
      }
    }
    const path = [config.toolsBinDir, config.path].join(delimiter);
    const warmed = new KustomizeServer(
      new Watching({ toolsBinDir: bin, path, baseEnv: config.toolEnv }),
    );
    warmed.warm();
    for (let i = 0; i < 100 && started.length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(started).toHaveLength(1);
    // The first build goes to the process the warming started.
    const [first] = cases;
    expect(first).toBeDefined();
    if (first)
      expect(await outcome(warmed.build(first.dir, options(first.plugins)))).toEqual(
        expected.get(first.name),
      );
    expect(started).toHaveLength(1);
    await warmed.close();
    expect(await started[0]).toMatchObject({ cancelled: false });
  });

  it('stops the server, and what its builds started, when the render is cancelled', async () => {
    const controller = new AbortController();
    const cancellable = new KustomizeServer(runner.withSignal(controller.signal));
    const dir = sleepingPlugin(work, 'cancelled', 60);
    const build = cancellable.build(dir, options(true)).catch((e: unknown) => e);
    const { shell, parent } = await pidsOf(dir);
    controller.abort();
    const err = await build;
    expect(err).toBeInstanceOf(CancelledError);
    expect(await gone(shell)).toBe(true);
    expect(await gone(parent)).toBe(true);
    const after = await cancellable.build(dir, options(true)).catch((e: unknown) => e);
    expect(classify(after)).toBe('cancelled');
    await cancellable.close();
  });

  it('measures 40 fleet builds, one kustomize process each against one server', async () => {
    const fleet = generateFleet({
      seed: 7,
      kustomizations: 42,
      releases: 1,
      chartRepositoryUrl: 'http://charts.invalid',
    });
    const fleetRoot = join(work, 'fleet');
    for (const [path, text] of Object.entries(fleet.files))
      writeFixture(join(fleetRoot, path), text, true);
    const dirs = Object.keys(fleet.files)
      .filter((p) => p.startsWith('apps/') && p.endsWith('/kustomization.yaml'))
      .map((p) => dirname(join(fleetRoot, p)));
    expect(dirs.length).toBeGreaterThanOrEqual(40);
    const timed = async (build: (dir: string) => Promise<string>) => {
      const times: number[] = [];
      const outputs: string[] = [];
      for (const dir of dirs.slice(0, 40)) {
        const start = performance.now();
        outputs.push(await build(dir));
        times.push(performance.now() - start);
      }
      return { times, outputs };
    };
    const binary = await timed((dir) => kustomizeBuild(runner, dir, options(false)));
    const fresh = new KustomizeServer(runner);
    const served = await timed((dir) => fresh.build(dir, options(false)));
    await fresh.close();
    expect(served.outputs).toEqual(binary.outputs);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    console.log(
      `40 fleet builds: kustomize binary median ${median(binary.times).toFixed(1)} ms, ` +
        `total ${total(binary.times).toFixed(0)} ms; kustomize-server median ` +
        `${median(served.times).toFixed(1)} ms, total ${total(served.times).toFixed(0)} ms ` +
        `(first build, with the start: ${(served.times[0] ?? 0).toFixed(1)} ms)`,
    );
  }, 300_000);
});

/** Writes a kustomization.yaml into `dir`, or with `asFile` the file at that path. */
function writeFixture(path: string, text: string, asFile = false): void {
  const file = asFile ? path : join(path, 'kustomization.yaml');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
