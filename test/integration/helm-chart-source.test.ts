/**
 * Resolving a HelmRelease's chart from real sources: an HTTP chart repository (a local
 * server serving `helm package` archives and a `helm repo index`), a docker-registry
 * OCI registry fed with `helm push`, and Git source folders (see chart-sources.ts). The
 * server records every request and the tool runner every helm call, so the tests see
 * what was fetched, what came from the cache, and that offline mode fetches nothing.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  recordedOciVersion,
  resolveChart,
  ChartUnavailableError,
  type ChartSourceContext,
} from '../../src/render/helm/chart/chart-source.js';
import { ChartContentError } from '../../src/render/helm/chart/chart-content-error.js';
import { HelmRelease } from '../../src/render/helm/helm-release.js';
import { copyFixtureCharts } from '../support/chart-repo.js';
import { EVIL_VERSIONS, startChartSources, type ChartSources } from '../support/chart-sources.js';

let env: ChartSources;
beforeAll(async () => {
  env = await startChartSources();
});
afterAll(() => env?.stop());

const context = (options?: { offline?: boolean; cacheDir?: string }) => env.context(options);
const scratch = () => env.tempDir('scratch-');

function release(spec: Record<string, unknown>): HelmRelease {
  return HelmRelease.parse({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name: 'app', namespace: 'apps' },
    spec,
  });
}

function fromSource(chart: string, kind: string, name: string, version?: string): HelmRelease {
  const sourceRef = { kind, name, namespace: 'flux-system' };
  return release({
    chart: { spec: { chart, sourceRef, ...(version !== undefined ? { version } : {}) } },
  });
}

const chartRef = (kind: string, name: string) => release({ chartRef: { kind, name } });
const sha256 = (path: string) =>
  `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
const chartVersion = (dir: string) =>
  /^version: (.+)$/m.exec(readFileSync(join(dir, 'Chart.yaml'), 'utf8'))?.[1];

async function unavailable(
  hr: HelmRelease,
  ctx: ChartSourceContext,
): Promise<ChartUnavailableError> {
  const err: unknown = await resolveChart(hr, ctx, scratch()).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChartUnavailableError);
  const error = err as ChartUnavailableError;
  expect(error.code).toBe('chart-unavailable');
  expect(error.message).toMatch(/^chart unavailable: /);
  return error;
}

/** A defect Flux would fail on too: no `chart-unavailable` code, so the PR can be blamed. */
async function contentError(hr: HelmRelease, ctx: ChartSourceContext): Promise<ChartContentError> {
  const err: unknown = await resolveChart(hr, ctx, scratch()).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChartContentError);
  const error = err as ChartContentError;
  expect(error.code).toBe('invalid-content');
  expect(error.message).toMatch(/^chart error: /);
  return error;
}

describe('a chart from an HTTP Helm repository', () => {
  it('resolves an exact version to the unpacked chart and the digest of its archive', async () => {
    env.server.clearRequests();
    const chart = await resolveChart(
      fromSource('hello', 'HelmRepository', 'abs', '1.2.0'),
      context(),
      scratch(),
    );
    expect(chart).toMatchObject({
      name: 'hello',
      version: '1.2.0',
      source: 'HelmRepository/flux-system/abs',
    });
    expect(chart.digest).toBe(sha256(join(env.server.root, 'abs', 'hello-1.2.0.tgz')));
    expect(chartVersion(chart.dir)).toBe('1.2.0');
    expect(existsSync(join(chart.dir, 'templates', 'configmap.yaml'))).toBe(true);
    expect(env.server.requests).toEqual(['/abs/index.yaml', '/abs/hello-1.2.0.tgz']);
  });

  it('serves a second render of the same version from the cache without a request', async () => {
    const ctx = context();
    const hr = fromSource('hello', 'HelmRepository', 'abs', '1.2.0');
    const first = await resolveChart(hr, ctx, scratch());
    env.server.clearRequests();
    const second = await resolveChart(hr, ctx, scratch());
    expect(env.server.requests).toEqual([]);
    expect(second.dir).not.toBe(first.dir);
    expect(second).toMatchObject({ version: '1.2.0', digest: first.digest });
  });

  it.each([
    ['', '2.0.0'],
    ['*', '2.0.0'],
    ['>=1.2 <2', '1.2.0'],
    ['~1.2', '1.2.0'],
    ['^1', '1.2.0'],
    ['1.x', '1.2.0'],
    ['<1.2 || >=2', '2.0.0'],
    ['>=1.3.0-rc.0 <2', '1.3.0-rc.1'],
  ])('picks for the constraint %j the version %s', async (version, expected) => {
    const chart = await resolveChart(
      fromSource('hello', 'HelmRepository', 'abs', version),
      context(),
      scratch(),
    );
    expect(chart.version).toBe(expected);
    expect(chartVersion(chart.dir)).toBe(expected);
  });

  it('asks the index again for a range, but takes the archive from the cache', async () => {
    const ctx = context();
    const hr = fromSource('hello', 'HelmRepository', 'abs', '^1');
    await resolveChart(hr, ctx, scratch());
    env.server.clearRequests();
    expect((await resolveChart(hr, ctx, scratch())).version).toBe('1.2.0');
    expect(env.server.requests).toEqual(['/abs/index.yaml']);
  });

  it('downloads relative archive URLs from under the repository URL, through redirects', async () => {
    env.server.clearRequests();
    const direct = await resolveChart(
      fromSource('hello', 'HelmRepository', 'rel'),
      context(),
      scratch(),
    );
    expect(env.server.requests).toEqual(['/rel/index.yaml', '/rel/hello-1.0.0.tgz']);
    env.server.clearRequests();
    const moved = await resolveChart(
      fromSource('hello', 'HelmRepository', 'moved'),
      context(),
      scratch(),
    );
    expect(env.server.requests).toEqual([
      '/moved/index.yaml',
      '/rel/index.yaml',
      '/moved/hello-1.0.0.tgz',
      '/rel/hello-1.0.0.tgz',
    ]);
    expect(moved).toMatchObject({ version: '1.0.0', digest: direct.digest });
  });

  it('renders offline from a warm cache, range included, without a request', async () => {
    const cacheDir = env.tempDir('cache-');
    const hr = fromSource('hello', 'HelmRepository', 'abs', '>=1.0.0');
    await resolveChart(hr, context({ cacheDir }), scratch());
    env.server.clearRequests();
    const chart = await resolveChart(hr, context({ cacheDir, offline: true }), scratch());
    expect(chart.version).toBe('2.0.0');
    expect(env.server.requests).toEqual([]);
  });

  it('fails cleanly offline when the cache is cold, without a request', async () => {
    env.server.clearRequests();
    const err = await unavailable(
      fromSource('hello', 'HelmRepository', 'abs', '1.0.0'),
      context({ offline: true }),
    );
    expect(err.message).toMatch(/not in the cache \(offline\)/);
    expect(env.server.requests).toEqual([]);
  });

  it('reports a closed port as an unavailable chart', async () => {
    const err = await unavailable(
      fromSource('hello', 'HelmRepository', 'closed', '1.0.0'),
      context(),
    );
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it.each([
    ['a version the index lacks', 'hello', 'abs', '9.9.9', /no version matching '9.9.9'/],
    ['a chart the index lacks', 'nope', 'abs', '1.0.0', /has no chart 'nope'/],
    ['a repository without an index', 'hello', 'missing', '1.0.0', /HTTP 404/],
    [
      'an archive that does not match the index digest',
      'hello',
      'bad',
      '1.0.0',
      /the index says sha256:0{64}/,
    ],
    [
      'a HelmRepository that does not exist',
      'hello',
      'ghost',
      '1.0.0',
      /HelmRepository\/flux-system\/ghost was not found/,
    ],
  ])(
    'reports %s as a chart error Flux fails on too',
    async (_case, chart, repo, version, message) => {
      const err = await contentError(fromSource(chart, 'HelmRepository', repo, version), context());
      expect(err.message).toMatch(message);
    },
  );
  // Past fluxlens's own size bounds the chart is unavailable (Flux may take it); a
  // malformed or unsafe archive is one Flux refuses too.
  it.each([
    ['6.6.1', EVIL_VERSIONS['6.6.1'], contentError, /unsafe path 'hello\/..\/..\/x'/],
    ['6.6.2', EVIL_VERSIONS['6.6.2'], contentError, /absolute path '\/etc\/x'/],
    [
      '6.6.3',
      EVIL_VERSIONS['6.6.3'],
      contentError,
      /'hello\/values.yaml', which is a link or special file/,
    ],
    ['6.6.4', EVIL_VERSIONS['6.6.4'], contentError, /is not gzip data/],
    ['6.6.5', EVIL_VERSIONS['6.6.5'], unavailable, /too large once decompressed|holds more than/],
    ['6.6.6', EVIL_VERSIONS['6.6.6'], unavailable, /is larger than 1048576 bytes/],
    [
      '6.6.7',
      EVIL_VERSIONS['6.6.7'],
      contentError,
      /'file:\/\/\/etc\/passwd' is not an http\(s\) URL/,
    ],
  ])('refuses version %s, whose archive has %s', async (version, _what, expectError, message) => {
    const cacheDir = env.tempDir('cache-');
    const hr = fromSource('hello', 'HelmRepository', 'evil', version);
    const err = await expectError(hr, context({ cacheDir }));
    expect(err.message).toMatch(message);
    expect(readdirSync(cacheDir).filter((name) => !name.startsWith('.'))).toEqual([]);
  });
});

describe('a chart in a Git source folder', () => {
  beforeAll(() => {
    mkdirSync(join(env.work, 'outside'), { recursive: true });
    symlinkSync(join(env.work, 'outside'), join(env.gitDir, 'charts', 'escape'));
    mkdirSync(join(env.gitDir, 'charts', 'dep-escape'), { recursive: true });
    writeFileSync(
      join(env.gitDir, 'charts', 'dep-escape', 'Chart.yaml'),
      'apiVersion: v2\nname: dep-escape\nversion: 0.1.0\ndependencies:\n  - name: outside\n    version: "*"\n    repository: file://../../../outside\n',
    );
  });

  it('copies the chart folder, with its own version and no digest', async () => {
    const chart = await resolveChart(
      fromSource('./charts/hello', 'GitRepository', 'flux-system'),
      context(),
      scratch(),
    );
    expect(chart).toEqual({
      dir: chart.dir,
      name: 'hello',
      version: '1.0.0',
      source: 'GitRepository/flux-system/flux-system',
      sourceRoot: env.gitDir,
    });
    expect(chart.dir.startsWith(env.gitDir)).toBe(false);
    expect(readFileSync(join(chart.dir, 'values.yaml'), 'utf8')).toBe('message: hello\n');
  });

  it('builds a file:// dependency into charts/ so that helm renders both charts', async () => {
    const chart = await resolveChart(
      fromSource('charts/with-deps', 'GitRepository', 'flux-system'),
      context(),
      scratch(),
    );
    expect(chartVersion(join(chart.dir, 'charts', 'hello'))).toBe('1.0.0');
    expect(existsSync(join(env.gitDir, 'charts', 'with-deps', 'charts'))).toBe(false);
    const { stdout } = await env.runner.run('helm', ['template', 'x', chart.dir]);
    expect(stdout).toContain('name: x-parent');
    expect(stdout).toContain('name: x-hello');
    expect(stdout).toContain('message: "from the parent"');
  });

  it('builds a remote dependency from its repository URL, and offline only from the cache', async () => {
    const dir = join(env.gitDir, 'charts', 'remote-deps');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'Chart.yaml'),
      `apiVersion: v2\nname: remote-deps\nversion: 0.1.0\ndependencies:\n  - name: hello\n    version: ^1\n    repository: ${env.server.url}/abs\n`,
    );
    const hr = fromSource('charts/remote-deps', 'GitRepository', 'flux-system');
    const cacheDir = env.tempDir('cache-');
    const cold = await unavailable(hr, context({ cacheDir, offline: true }));
    expect(cold.message).toMatch(/\(a dependency of chart 'charts\/remote-deps' .*\(offline\)/);
    const chart = await resolveChart(hr, context({ cacheDir }), scratch());
    expect(chartVersion(join(chart.dir, 'charts', 'hello'))).toBe('1.2.0');
    env.server.clearRequests();
    await resolveChart(hr, context({ cacheDir, offline: true }), scratch());
    expect(env.server.requests).toEqual([]);
  });

  it('keeps a dependency already in charts/ and fetches nothing for it', async () => {
    const dir = join(env.gitDir, 'charts', 'vendored');
    copyFixtureCharts(join(dir), ['hello']);
    writeFileSync(
      join(dir, 'Chart.yaml'),
      `apiVersion: v2\nname: vendored\nversion: 0.1.0\ndependencies:\n  - name: hello\n    version: ^1\n    repository: http://127.0.0.1:${env.closedPort}/\n`,
    );
    const chart = await resolveChart(
      fromSource('charts/vendored', 'GitRepository', 'flux-system'),
      context(),
      scratch(),
    );
    expect(chartVersion(join(chart.dir, 'charts', 'hello'))).toBe('1.0.0');
  });

  it.each([
    ['a path above the source', '../outside', 'flux-system', /leaves the source/],
    ['a symlink out of the source', 'charts/escape', 'flux-system', /leaves the source/],
    [
      'a file:// dependency out of the source',
      'charts/dep-escape',
      'flux-system',
      /'file:\/\/..\/..\/..\/outside' leaves the source/,
    ],
    ['a missing path', 'charts/nothing', 'flux-system', /no such path in the source/],
  ])('refuses %s as a chart error Flux fails on too', async (_case, path, source, message) => {
    const err = await contentError(fromSource(path, 'GitRepository', source), context());
    expect(err.message).toMatch(message);
  });

  it('reports an unmapped remote GitRepository as unavailable: Flux has it, fluxlens not', async () => {
    const err = await unavailable(fromSource('charts/hello', 'GitRepository', 'other'), context());
    expect(err.message).toMatch(/map it with --source other=DIR/);
  });
});

describe('a chart from an OCI registry', () => {
  it('pulls a version from a HelmRepository of type oci once, then uses the cache', async () => {
    const ctx = context();
    const hr = fromSource('hello', 'HelmRepository', 'oci', '1.0.0');
    const before = env.runner.pulls();
    const chart = await resolveChart(hr, ctx, scratch());
    expect(chart).toMatchObject({
      name: 'hello',
      version: '1.0.0',
      source: 'HelmRepository/flux-system/oci',
    });
    expect(chart.digest).toBe(await env.registry.manifestDigest('charts/hello', '1.0.0'));
    await resolveChart(hr, ctx, scratch());
    await resolveChart(hr, { ...ctx, offline: true }, scratch());
    expect(env.runner.pulls() - before).toBe(1);
  });

  it('resolves a version range through the registry tags', async () => {
    const chart = await resolveChart(
      fromSource('hello', 'HelmRepository', 'oci', '>=1.0.0 <3'),
      context(),
      scratch(),
    );
    expect(chart.version).toBe('2.0.0');
  });

  it.each([
    ['tag', { tag: '1.0.0' }],
    ['digest', { digest: 'DIGEST' }],
    ['semver', { semver: '~1.0' }],
  ])(
    'records VERSION+DIGEST12 for a chartRef OCIRepository by %s, as helm-controller does',
    async (_by, ref) => {
      const digest = await env.registry.manifestDigest('charts/hello', '1.0.0');
      const spec = {
        url: `${env.registry.url}/charts/hello`,
        ref: 'digest' in ref ? { digest } : ref,
      };
      env.addObject('OCIRepository', 'apps', 'hello', spec);
      const chart = await resolveChart(chartRef('OCIRepository', 'hello'), context(), scratch());
      expect(chart).toMatchObject({ name: 'hello', digest, source: 'OCIRepository/apps/hello' });
      expect(chart.version).toBe(`1.0.0+${digest.slice('sha256:'.length, 'sha256:'.length + 12)}`);
      expect(chartVersion(chart.dir)).toBe('1.0.0');
    },
  );

  it('follows a chartRef HelmChart to its HelmRepository', async () => {
    const chart = await resolveChart(chartRef('HelmChart', 'hello'), context(), scratch());
    expect(chart).toMatchObject({ version: '1.2.0', source: 'HelmRepository/apps/abs' });
  });

  it.each([
    ['a cold cache offline', 'oci', '1.0.0', true, /not in the cache \(offline\)/],
    [
      'a closed registry port',
      'oci-closed',
      '1.0.0',
      false,
      /cannot fetch http:\/\/127\.0\.0\.1:\d+\/v2\/charts\/hello\/manifests\/1\.0\.0: 127\.0\.0\.1:\d+ refused the connection \(ECONNREFUSED\)$/,
    ],
  ])('reports %s as an unavailable chart', async (_case, repo, version, offline, message) => {
    const err = await unavailable(
      fromSource('hello', 'HelmRepository', repo, version),
      context({ offline }),
    );
    expect(err.message).toMatch(message);
  });

  it('reports a tag the reachable registry lacks as a chart error Flux fails on too', async () => {
    const err = await contentError(
      fromSource('hello', 'HelmRepository', 'oci', '9.9.9'),
      context(),
    );
    expect(err.message).toMatch(/helm pull failed: .*not found/);
  });

  it.each([
    ['latest', /failed parsing artifact revision latest/],
    ['1.0.1', /artifact revision 1.0.1 does not match chart version 1.0.0/],
  ])('refuses an OCIRepository tag %s that is not the chart version', (tag, message) => {
    const meta = {
      name: 'hello',
      version: '1.0.0',
      digest: `sha256:${'a'.repeat(64)}`,
      url: 'oci://x/y',
    };
    expect(() => recordedOciVersion(meta, tag, 'OCIRepository/apps/hello')).toThrow(message);
  });
});

it('refuses a HelmRelease that sets both spec.chart and spec.chartRef', async () => {
  const sourceRef = { kind: 'HelmRepository', name: 'abs' };
  const hr = release({
    chart: { spec: { chart: 'hello', sourceRef } },
    chartRef: { kind: 'HelmChart', name: 'x' },
  });
  expect((await contentError(hr, context())).message).toMatch(
    /sets both spec.chart and spec.chartRef/,
  );
});
