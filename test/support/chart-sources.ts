/**
 * Every kind of chart source at once, for chart resolution tests: an HTTP chart server
 * with repositories `abs` (absolute URLs, versions 1.0.0 1.2.0 1.3.0-rc.1 2.0.0), `rel`
 * (relative URLs), `moved` (redirects to rel), `bad` (wrong digest) and `evil`
 * (hand-made hostile archives, see EVIL_VERSIONS); an OCI registry
 * with hello 1.0.0 and 2.0.0 under /charts; a Git source folder with the fixture charts;
 * and the Flux source objects naming them. A runner that records its calls counts the
 * `helm pull`s.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import type { ChartSourceContext } from '../../src/render/helm/chart/chart-source.js';
import {
  ToolRunner,
  type ToolName,
  type ToolResult,
  type ToolRunOptions,
} from '../../src/tool-runner.js';
import {
  copyFixtureCharts,
  craftChartArchive,
  fixtureCharts,
  makeChartRepository,
  packageChart,
  pushChart,
} from './chart-repo.js';
import { startChartServer, type ChartServer } from './chart-server.js';
import { freePort, startOciRegistry, type OciRegistry } from './oci-registry.js';

/** The real runner, recording each call. */
export class RecordingRunner extends ToolRunner {
  readonly calls: string[][] = [];

  override run(
    tool: ToolName,
    args: readonly string[],
    options?: ToolRunOptions,
  ): Promise<ToolResult> {
    this.calls.push([tool, ...args]);
    return super.run(tool, args, options);
  }

  pulls(): number {
    return this.calls.filter((c) => c[0] === 'helm' && c[1] === 'pull').length;
  }
}

export interface ChartSources {
  work: string;
  runner: RecordingRunner;
  server: ChartServer;
  registry: OciRegistry;
  /** The GitRepository flux-system/flux-system folder; charts/ holds the fixtures. */
  gitDir: string;
  /** A loopback port nothing listens on. */
  closedPort: number;
  addObject(kind: string, namespace: string, name: string, spec: Record<string, unknown>): void;
  context(options?: { offline?: boolean; cacheDir?: string }): ChartSourceContext;
  /** A new empty folder under work. */
  tempDir(prefix: string): string;
  stop(): Promise<void>;
}

export const HELLO_VERSIONS = ['1.0.0', '1.2.0', '1.3.0-rc.1', '2.0.0'] as const;

export async function startChartSources(): Promise<ChartSources> {
  const config = loadConfig();
  const runner = new RecordingRunner({
    toolsBinDir: config.toolsBinDir,
    path: config.path,
    baseEnv: config.toolEnv,
  });
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-chart-sources-'));
  const server = await startChartServer(join(work, 'www'));
  mkdirSync(server.root, { recursive: true });
  const registry = await startOciRegistry();
  const closedPort = await freePort();
  const gitDir = join(work, 'git');
  const objects = new Map<string, Record<string, unknown>>();
  const addObject: ChartSources['addObject'] = (kind, namespace, name, spec) => {
    const apiVersion = 'source.toolkit.fluxcd.io/v1';
    objects.set(`${kind}/${namespace}/${name}`, {
      apiVersion,
      kind,
      metadata: { name, namespace },
      spec,
    });
  };
  await fillRepositories(runner, server, registry, work);
  copyFixtureCharts(gitDir, ['hello', 'with-deps']);
  addObjects(addObject, server.url, registry.url, closedPort);
  const tempDir = (prefix: string) => mkdtempSync(join(work, prefix));
  return {
    work,
    runner,
    server,
    registry,
    gitDir,
    closedPort,
    addObject,
    tempDir,
    context: (options = {}) => ({
      runner,
      lookup: (kind, namespace, name) => objects.get(`${kind}/${namespace}/${name}`),
      sourceDir: async (kind, namespace, name) =>
        `${kind}/${namespace}/${name}` === 'GitRepository/flux-system/flux-system'
          ? gitDir
          : undefined,
      cacheDir: options.cacheDir ?? tempDir('cache-'),
      offline: options.offline ?? false,
      timeoutMs: 20_000,
      maxChartBytes: 1024 * 1024,
    }),
    stop: async () => {
      await server.close();
      await registry.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

async function fillRepositories(
  runner: ToolRunner,
  server: ChartServer,
  registry: OciRegistry,
  work: string,
): Promise<void> {
  const www = server.root;
  server.redirect('/moved/', '/rel/');
  const abs = { dir: join(www, 'abs'), chart: 'hello', versions: HELLO_VERSIONS };
  await makeChartRepository(runner, { ...abs, url: `${server.url}/abs` });
  await makeChartRepository(runner, { dir: join(www, 'rel'), chart: 'hello', versions: ['1.0.0'] });
  await makeChartRepository(runner, { dir: join(www, 'bad'), chart: 'hello', versions: ['1.0.0'] });
  const badIndex = join(www, 'bad', 'index.yaml');
  const zeros = `digest: "${'0'.repeat(64)}"`;
  writeFileSync(badIndex, readFileSync(badIndex, 'utf8').replace(/digest: [0-9a-f]+/, zeros));
  writeEvilRepository(join(www, 'evil'));
  for (const version of ['1.0.0', '2.0.0']) {
    const hello = join(fixtureCharts, 'hello');
    const archive = await packageChart(runner, hello, join(work, 'oci'), version);
    await pushChart(runner, archive, `${registry.url}/charts`);
  }
}

/** Versions of `hello` in the `evil` repository, each an archive nobody should unpack. */
export const EVIL_VERSIONS = {
  '6.6.1': 'a path with ..',
  '6.6.2': 'an absolute path',
  '6.6.3': 'a symlink',
  '6.6.4': 'bytes that are not gzip',
  '6.6.5': 'a file that unpacks to 25 MiB',
  '6.6.6': 'an archive of 1.5 MiB',
  '6.6.7': 'a file: URL',
} as const;

function writeEvilRepository(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const chartYaml = (version: string) => ({
    name: 'hello/Chart.yaml',
    data: `apiVersion: v2\nname: hello\nversion: ${version}\n`,
  });
  const archives: Record<string, Buffer> = {
    '6.6.1': craftChartArchive([chartYaml('6.6.1'), { name: 'hello/../../x', data: 'x' }]),
    '6.6.2': craftChartArchive([chartYaml('6.6.2'), { name: '/etc/x', data: 'x' }]),
    '6.6.3': craftChartArchive([
      chartYaml('6.6.3'),
      { name: 'hello/values.yaml', type: '2', linkname: '/etc/passwd' },
    ]),
    '6.6.4': Buffer.from('not gzip'),
    '6.6.5': craftChartArchive([
      chartYaml('6.6.5'),
      { name: 'hello/big', data: '\0'.repeat(25 * 1024 * 1024) },
    ]),
    '6.6.6': randomBytes(1.5 * 1024 * 1024),
  };
  const entries = Object.keys(EVIL_VERSIONS).map((version) => {
    const url = version === '6.6.7' ? 'file:///etc/passwd' : `hello-${version}.tgz`;
    const archive = archives[version];
    if (archive) writeFileSync(join(dir, `hello-${version}.tgz`), archive);
    return `    - name: hello\n      version: ${version}\n      urls: ["${url}"]\n`;
  });
  writeFileSync(join(dir, 'index.yaml'), `apiVersion: v1\nentries:\n  hello:\n${entries.join('')}`);
}

function addObjects(
  addObject: ChartSources['addObject'],
  serverUrl: string,
  registryUrl: string,
  closedPort: number,
): void {
  const http: [string, string][] = [
    ['abs', `${serverUrl}/abs`],
    ['rel', `${serverUrl}/rel/`],
    ['moved', `${serverUrl}/moved`],
    ['bad', `${serverUrl}/bad`],
    ['evil', `${serverUrl}/evil`],
    ['missing', `${serverUrl}/nothing-here`],
    ['closed', `http://127.0.0.1:${closedPort}/`],
  ];
  for (const [name, url] of http) addObject('HelmRepository', 'flux-system', name, { url });
  addObject('HelmRepository', 'apps', 'abs', { url: `${serverUrl}/abs` });
  addObject('HelmRepository', 'flux-system', 'oci', { type: 'oci', url: `${registryUrl}/charts` });
  addObject('HelmRepository', 'flux-system', 'oci-closed', {
    type: 'oci',
    url: `oci://127.0.0.1:${closedPort}/charts`,
  });
  addObject('HelmChart', 'apps', 'hello', {
    chart: 'hello',
    version: '~1.2',
    sourceRef: { kind: 'HelmRepository', name: 'abs' },
  });
  addObject('GitRepository', 'flux-system', 'flux-system', { url: 'https://example.invalid/a' });
  addObject('GitRepository', 'flux-system', 'other', { url: 'https://example.invalid/b' });
}
