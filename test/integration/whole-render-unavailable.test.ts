/**
 * A render of a commit whose charts could not all be fetched, kept whole while the chart
 * memory holds each failure (issue 22, point 2): the next review of the same base reads it
 * back instead of rendering anything; once a failure is no longer remembered (the memory
 * ran out, is off, or the render asks again) only those releases are tried again and
 * every other producer is taken from what the earlier render read; and when the chart can
 * be fetched the render holds it, and is the one read back next.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedCluster } from '../../src/model/render.js';
import { loadConfig } from '../../src/config.js';
import { RenderMemo } from '../../src/render/cache/index.js';
import {
  DEFAULT_CHART_NETWORK,
  type ChartNetwork,
  type RenderRequest,
  type RenderSettings,
} from '../../src/render/index.js';
import { makeChartRepository } from '../support/chart-repo.js';
import { startChartServer, type ChartServer } from '../support/chart-server.js';
import { basicEntry, LOGINS } from '../support/private-charts.js';
import { builtinEngine, testHelmSettings, testRunner } from '../support/render.js';
import {
  configMapApps,
  helmRepositoryRelease,
  makeRepo,
  yamlStream as yaml,
  type TestRepo,
} from '../support/repo.js';

const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The renderable releases' repository. */
let charts: ChartServer;
/** Answers 503 to everything while `down`, and serves the same repository otherwise. */
let flaky: Server;
let flakyUrl: string;
let down = true;
const flakyRequests: string[] = [];

beforeAll(async () => {
  const www = tempDir('fluxlens-kept-charts-');
  await makeChartRepository(testRunner(), { dir: www, chart: 'hello', versions: ['1.0.0'] });
  charts = await startChartServer(www);
  cleanup.push(() => charts.close());
  flaky = createServer((req, res) => {
    flakyRequests.push(req.url ?? '');
    if (down) return void res.writeHead(503).end();
    const name = (req.url ?? '').replace(/^\/charts\//, '');
    if (!/^[\w.-]+$/.test(name)) return void res.writeHead(404).end();
    try {
      res.end(readFileSync(join(www, name)));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
  const address = flaky.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  flakyUrl = `http://127.0.0.1:${address.port}/charts/`;
  cleanup.push(() => new Promise<void>((resolve) => flaky.close(() => resolve())));
});

const APPS = 8;

/** APPS Kustomizations, two releases from the reachable repository, two from the flaky one. */
function repository(): TestRepo {
  const files = configMapApps(APPS, (i) => ({ index: String(i) }));
  const source = (name: string, url: string) => ({
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'HelmRepository',
    metadata: { name, namespace: 'apps' },
    spec: { interval: '1h', url },
  });
  const release = (name: string, repository: string) =>
    helmRepositoryRelease(name, 'apps', { chart: 'hello', version: '1.0.0', repository });
  files['apps/app-0/kustomization.yaml'] =
    'resources:\n  - config.yaml\n  - releases.yaml\n  - remote.yaml\n';
  files['apps/app-0/releases.yaml'] = yaml(
    source('charts', `${charts.url}/`),
    release('web', 'charts'),
    release('api', 'charts'),
  );
  // Two releases of the one chart that cannot be fetched: they fetch it side by side.
  files['apps/app-0/remote.yaml'] = yaml(
    source('flaky', flakyUrl),
    release('remote', 'flaky'),
    release('mirror', 'flaky'),
  );
  const repo = makeRepo(files, { git: true });
  cleanup.push(() => repo.remove());
  return repo;
}

const REMEMBERING: ChartNetwork = { ...DEFAULT_CHART_NETWORK, unavailableTtlMs: 300_000 };

/** One machine: its render cache and its chart cache (where the chart memory lives). */
function machine(): { cache: NonNullable<RenderSettings['cache']>; chartCacheDir: string } {
  const cache = { dir: tempDir('fluxlens-kept-cache-'), maxBytes: 64 * 1024 * 1024 };
  return { cache, chartCacheDir: tempDir('fluxlens-kept-chart-cache-') };
}

/** A render on `on`, online for the loopback servers, as the next CLI run or review would. */
function render(
  on: ReturnType<typeof machine>,
  repo: TestRepo,
  rev: string,
  network: ChartNetwork = REMEMBERING,
  memo?: RenderMemo,
): Promise<RenderedCluster> {
  const engine = builtinEngine({
    helm: { ...testHelmSettings, offline: false, chartCacheDir: on.chartCacheDir, network },
    cache: on.cache,
  });
  const request: RenderRequest = {
    repoDir: repo.dir,
    rev,
    entry: 'clusters/prod',
    sources: [],
    ...(memo ? { memo } : {}),
  };
  return engine.render(request);
}

/** What the rest of fluxlens sees of a render: everything but what the cache did with it. */
const seen = ({ cache: _cache, kept: _kept, ...cluster }: RenderedCluster) => cluster;
const FLAKY = ['HelmRelease/mirror', 'HelmRelease/remote'];
const REMEMBERED =
  /answered HTTP 503 \(failed at \d\d:\d\d:\d\d UTC; remembered, not tried again before \d\d:\d\d:\d\d UTC\)$/;
const unavailable = (cluster: RenderedCluster) =>
  cluster.errors.map((e) => [`${e.producer.kind}/${e.producer.name}`, e.code, e.message]);
const producerNames = (cluster: RenderedCluster) =>
  new Set(cluster.objects.map((o) => o.producer.name));

describe('a base with a chart that could not be fetched', () => {
  it('is rendered once: the next review of the same base reads it back whole, its error as it was', async () => {
    const repo = repository();
    const base = repo.commit('base');
    const on = machine();
    down = true;
    flakyRequests.length = 0;
    const first = await render(on, repo, base);
    expect(unavailable(first)).toEqual(
      FLAKY.map((name) => [name, 'chart-unavailable', expect.stringMatching(REMEMBERED)]),
    );
    // Everything else rendered: flux-system, every app and both reachable releases.
    const others = first.producers.filter((p) => p.error === undefined).map((p) => p.name);
    expect(others).toHaveLength(APPS + 3);
    expect(producerNames(first)).toEqual(new Set(others));
    expect(first.cache?.whole).toBeUndefined();
    expect(first.cache?.misses).toBeGreaterThan(0);
    const asked = flakyRequests.length;
    expect(asked).toBeGreaterThan(0);
    charts.clearRequests();

    // The second pull request on that base, in a review of its own.
    const memo = new RenderMemo();
    const second = await render(on, repo, base, REMEMBERING, memo);
    expect(second.cache).toEqual({ hits: 0, misses: 0, whole: true });
    expect(seen(second)).toEqual(seen(first));
    expect(second.errors[0]?.code).toBe('chart-unavailable');
    // Its producers are handed to the review's head as a fresh render would hand them.
    expect(memo.counts).toMatchObject({ rendered: 0, unchanged: 0 });
    expect(memo.counts.cached).toBe(first.producers.length);
    expect([flakyRequests.length, charts.requests]).toEqual([asked, []]);
  });

  it.each([
    ['the render asks again', { ...REMEMBERING, retryUnavailable: true }, REMEMBERING, 1],
    // Without the memory each release asks on its own.
    ['the memory is off', { ...REMEMBERING, unavailableTtlMs: 0 }, REMEMBERING, 2],
    // A memory of 1 ms has run out by the next render, kept or not.
    ['the memory has run out', REMEMBERING, { ...REMEMBERING, unavailableTtlMs: 1 }, 1],
  ])(
    'tries only the unavailable chart again when %s, taking every other producer from the kept render',
    async (_name, next, firstNetwork, asked) => {
      const repo = repository();
      const base = repo.commit('base');
      const on = machine();
      down = true;
      const first = await render(on, repo, base, firstNetwork);
      expect(unavailable(first)).toEqual(
        FLAKY.map((name) => [name, 'chart-unavailable', expect.stringMatching(/HTTP 503/)]),
      );
      flakyRequests.length = 0;
      charts.clearRequests();

      const again = await render(on, repo, base, next);
      // The flaky repository was asked again, for its index only: the chart is still down.
      expect(flakyRequests).toEqual(Array(asked).fill('/charts/index.yaml'));
      expect(charts.requests).toEqual([]);
      expect(unavailable(again)).toEqual(
        FLAKY.map((name) => [name, 'chart-unavailable', expect.stringMatching(/HTTP 503/)]),
      );
      // Nothing else was built or read again: every other producer keyed from the kept
      // render's record of what it read, its output read back from the cache.
      expect(again.cache?.whole).toBeUndefined();
      expect(again.cache?.misses).toBe(0);
      expect(again.cache?.carried).toBe(first.producers.length - FLAKY.length);
      expect(again.cache?.hits).toBe(first.producers.length - FLAKY.length);
      expect(seen(again).objects).toEqual(seen(first).objects);
      // The same producers; the failed one says when it failed this time.
      const described = (c: RenderedCluster) => c.producers.map(({ error: _e, ...p }) => p);
      expect(described(again)).toEqual(described(first));

      // The memory holds one failure for both releases, and the next review reads it back.
      flakyRequests.length = 0;
      const review = await render(on, repo, base);
      expect(review.cache).toEqual({ hits: 0, misses: 0, whole: true });
      expect(new Set(review.errors.map((e) => e.message)).size).toBe(1);
      expect(review.errors[0]?.message).toMatch(REMEMBERED);
      expect(flakyRequests).toEqual([]);
    },
  );

  it('is rendered again when a login is added for the chart host: the memory holds no failure with it', async () => {
    const repo = repository();
    const base = repo.commit('base');
    const on = machine();
    down = true;
    const first = await render(on, repo, base);
    expect(first.errors).toHaveLength(FLAKY.length);
    const path = join(tempDir('fluxlens-kept-logins-'), 'registry-config.json');
    const host = new URL(flakyUrl).host;
    writeFileSync(path, JSON.stringify({ auths: { [host]: basicEntry(LOGINS.http) } }));
    const credentials = loadConfig({ FLUXLENS_REGISTRY_CONFIG: path }).chartNetwork.credentials;
    flakyRequests.length = 0;
    const withLogin = await render(on, repo, base, { ...REMEMBERING, credentials });
    expect(withLogin.cache?.whole).toBeUndefined();
    expect(withLogin.cache?.misses).toBe(0);
    expect(flakyRequests).toEqual(['/charts/index.yaml']);
  });

  it('holds the chart once it can be fetched, and that render is the one read back next', async () => {
    const repo = repository();
    const base = repo.commit('base');
    const on = machine();
    down = true;
    const first = await render(on, repo, base);
    expect(first.errors).toHaveLength(FLAKY.length);
    down = false;
    flakyRequests.length = 0;
    // Still remembered: read back whole, the server is not asked.
    expect((await render(on, repo, base)).cache?.whole).toBe(true);
    expect(flakyRequests).toEqual([]);

    const fetched = await render(on, repo, base, { ...REMEMBERING, retryUnavailable: true });
    expect(fetched.errors).toEqual([]);
    expect(producerNames(fetched)).toEqual(new Set(first.producers.map((p) => p.name)));
    // The second release asks for the index once the first has fetched the chart.
    expect(flakyRequests.toSorted()).toEqual([
      '/charts/hello-1.0.0.tgz',
      '/charts/index.yaml',
      '/charts/index.yaml',
    ]);
    // Only the releases that were missing were built.
    expect(fetched.cache?.hits).toBe(first.producers.length - FLAKY.length);
    expect(fetched.cache?.misses).toBeGreaterThan(0);

    flakyRequests.length = 0;
    const next = await render(on, repo, base);
    expect(next.cache).toEqual({ hits: 0, misses: 0, whole: true });
    expect(seen(next)).toEqual(seen(fetched));
    expect(flakyRequests).toEqual([]);
    // The same render a machine with nothing cached gives.
    const fresh = await render(machine(), repo, base);
    expect(seen(fresh)).toEqual(seen(fetched));
  });
});
