/**
 * An analysis already done is not done again (issue 22): the same question (both commits,
 * the cluster paths, the render options, the sources, the tools and fluxlens's version) is
 * answered from the render cache without rendering, diffing or judging, and says so in its
 * timings; any other question is analysed. The kept answer never outlives the chart memory
 * its renders were kept with, `--no-cache` never reads it, and it holds no Secret value.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyze, type AnalysisRequest } from '../../src/analysis/index.js';
import type { AnalysisResult } from '../../src/model/analysis.js';
import {
  createEngine,
  DEFAULT_CHART_NETWORK,
  RenderOptions,
  type ChartNetwork,
  type EngineDeps,
  type EngineName,
  type RenderMachine,
} from '../../src/render/index.js';
import { makeChartRepository } from '../support/chart-repo.js';
import { runCli } from '../support/cli.js';
import { scratchDirs } from '../support/scratch-dirs.js';
import { testMachine, testRunner, withoutTimings } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  helmRepositoryRelease,
  makeRepo,
  yamlStream as yaml,
  type TestRepo,
} from '../support/repo.js';

const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});
afterEach(() => {
  vi.doUnmock('../../src/version.js');
  vi.resetModules();
});

const { tempDir } = scratchDirs();

/** A chart repository that answers 503 to everything while `down`. */
let flaky: Server;
let flakyUrl: string;
let down = true;
const flakyRequests: string[] = [];

beforeAll(async () => {
  const www = tempDir('fluxlens-kept-analysis-charts-');
  await makeChartRepository(testRunner(), { dir: www, chart: 'hello', versions: ['1.0.0'] });
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

const SECRET_VALUE = 'kept-analysis-secret-value';

function configMap(name: string, data: Record<string, string>): object {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'apps' }, data };
}

/**
 * Two clusters; prod has two apps and a release whose chart repository is down, staging one
 * app. `base`, then `head` (a ConfigMap and a Secret of prod changed) and `other` (another
 * ConfigMap value).
 */
function repository(policy?: string): {
  repo: TestRepo;
  base: string;
  head: string;
  other: string;
} {
  const secret = (value: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'token', namespace: 'apps' },
    stringData: { token: value },
  });
  const repo = makeRepo(
    {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yaml(
        fluxKustomization('app-0', './apps/app-0'),
        fluxKustomization('app-1', './apps/app-1'),
      ),
      'clusters/staging/flux-system.yaml': bootstrap('./clusters/staging'),
      'clusters/staging/apps.yaml': yaml(fluxKustomization('app-1', './apps/app-1')),
      'apps/app-0/kustomization.yaml': 'resources:\n  - config.yaml\n  - release.yaml\n',
      'apps/app-0/config.yaml': yaml(configMap('app-0', { color: 'red' }), secret('before')),
      'apps/app-0/release.yaml': yaml(
        {
          apiVersion: 'source.toolkit.fluxcd.io/v1',
          kind: 'HelmRepository',
          metadata: { name: 'flaky', namespace: 'apps' },
          spec: { interval: '1h', url: flakyUrl },
        },
        helmRepositoryRelease('remote', 'apps', {
          chart: 'hello',
          version: '1.0.0',
          repository: 'flaky',
        }),
      ),
      'apps/app-1/kustomization.yaml': 'resources:\n  - config.yaml\n',
      'apps/app-1/config.yaml': yaml(configMap('app-1', { size: 'small' })),
      ...(policy === undefined ? {} : { '.fluxlens.yaml': policy }),
    },
    { git: true },
  );
  cleanup.push(() => repo.remove());
  const base = repo.commit('base');
  repo.write({
    'apps/app-0/config.yaml': yaml(configMap('app-0', { color: 'blue' }), secret(SECRET_VALUE)),
  });
  const head = repo.commit('head');
  repo.write({ 'apps/app-1/config.yaml': yaml(configMap('app-1', { size: 'large' })) });
  const other = repo.commit('other');
  return { repo, base, head, other };
}

const REMEMBERING: ChartNetwork = { ...DEFAULT_CHART_NETWORK, unavailableTtlMs: 300_000 };

/** One machine: its render cache (absent: `--no-cache`) and its chart cache and memory. */
function machine(network: ChartNetwork = REMEMBERING): RenderMachine {
  return {
    ...testMachine,
    chartCacheDir: tempDir('fluxlens-kept-analysis-chart-cache-'),
    chartNetwork: network,
    renderCache: { dir: tempDir('fluxlens-kept-analysis-cache-'), maxBytes: 64 * 1024 * 1024 },
  };
}

/** The review of base..head of prod, online for the loopback chart repository. */
function request(repo: TestRepo, base: string, head: string): AnalysisRequest {
  return {
    repoDir: repo.dir,
    base,
    head,
    paths: ['clusters/prod'],
    engine: 'builtin',
    render: RenderOptions.parse({}),
    sources: [],
  };
}

/** An analysis on `on`, counting the engines it makes (none when it renders nothing). */
async function review(
  on: RenderMachine,
  asked: AnalysisRequest,
  analyzeWith: typeof analyze = analyze,
): Promise<{ result: AnalysisResult; engines: number }> {
  let engines = 0;
  const made = (name: EngineName, deps: EngineDeps) => {
    engines += 1;
    return createEngine(name, deps);
  };
  const { result } = await analyzeWith(asked, {
    runner: testRunner(),
    machine: on,
    createEngine: made,
  });
  return { result, engines };
}

/** The analyses kept in a render cache folder, as their files hold them. */
function keptEntries(on: RenderMachine): string[] {
  const dir = on.renderCache?.dir ?? '';
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.json'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .filter((text) => text.includes('"holds":'));
}

describe('an analysis asked for again', () => {
  it('is given back as it was, without rendering or asking the chart repository again', async () => {
    const { repo, base, head } = repository();
    const on = machine();
    down = true;
    const first = await review(on, request(repo, base, head));
    expect(first.engines).toBe(1);
    expect(first.result.timings['analysis-kept']).toBe(0);
    expect(first.result.summary.changed).toBeGreaterThan(0);
    expect(first.result.errors.map((e) => e.code)).toContain('chart-unavailable');
    flakyRequests.length = 0;

    const again = await review(on, request(repo, base, head));
    expect(again.engines).toBe(0);
    expect(again.result.timings['analysis-kept']).toBe(1);
    expect(withoutTimings(again.result)).toEqual(withoutTimings(first.result));
    expect(flakyRequests).toEqual([]);

    // The revisions are named as this request names them.
    const labels = { base: 'main', head: 'feature' };
    const named = await review(on, { ...request(repo, base, head), labels });
    expect(named.result.timings['analysis-kept']).toBe(1);
    expect([named.result.base.rev, named.result.head.rev]).toEqual(['main', 'feature']);
    expect(named.result.head.sha).toBe(first.result.head.sha);
  });

  it("gives back the base policy's acknowledgements: carry with the analysis it kept", async () => {
    const { repo, base, head } = repository('acknowledgements: carry\n');
    const on = machine();
    down = true;
    const deps = { runner: testRunner(), machine: on };
    const first = await analyze(request(repo, base, head), deps);
    const again = await analyze(request(repo, base, head), deps);
    expect(again.result.timings['analysis-kept']).toBe(1);
    expect([first.carryAcknowledgements, again.carryAcknowledgements]).toEqual([true, true]);
    const plain = repository();
    const without = await analyze(request(plain.repo, plain.base, plain.head), deps);
    expect(without.carryAcknowledgements).toBeUndefined();
  });

  it.each<[string, (r: AnalysisRequest, on: { other: string }) => AnalysisRequest]>([
    ['another head', (r, on) => ({ ...r, head: on.other })],
    ['other cluster paths', (r) => ({ ...r, paths: ['clusters/staging'] })],
    ['other render options', (r) => ({ ...r, render: { ...r.render, lenientSubstitution: true } })],
    [
      'a source mapping',
      (r) => ({ ...r, sources: [{ key: 'flux-system/unused', dir: tmpdir() }] }),
    ],
  ])('is analysed anew for %s', async (_what, change) => {
    const { repo, base, head, other } = repository();
    const on = machine();
    down = true;
    const asked = request(repo, base, head);
    await review(on, asked);
    const changed = await review(on, change(asked, { other }));
    expect(changed.engines).toBe(1);
    expect(changed.result.timings['analysis-kept']).not.toBe(1);
    // The question asked first is still answered from what was kept.
    const again = await review(on, asked);
    expect([again.engines, again.result.timings['analysis-kept']]).toEqual([0, 1]);
  });

  it('is analysed anew by another version of fluxlens', async () => {
    const { repo, base, head } = repository();
    const on = machine();
    down = true;
    await review(on, request(repo, base, head));
    vi.resetModules();
    vi.doMock('../../src/version.js', () => ({ FLUXLENS_VERSION: '0.0.0-other' }));
    const other = await import('../../src/analysis/index.js');
    const upgraded = await review(on, request(repo, base, head), other.analyze);
    expect(upgraded.engines).toBe(1);
    expect(upgraded.result.timings['analysis-kept']).toBe(0);
  });

  it.each([
    ['the render asks the chart repository again', { ...REMEMBERING, retryUnavailable: true }],
    ['the chart memory is off', { ...REMEMBERING, unavailableTtlMs: 0 }],
  ])('is analysed anew when %s', async (_what, next) => {
    const { repo, base, head } = repository();
    down = true;
    const on = machine();
    const first = await review(on, request(repo, base, head));
    flakyRequests.length = 0;
    const again = await review({ ...on, chartNetwork: next }, request(repo, base, head));
    expect(again.engines).toBe(1);
    expect(again.result.timings['analysis-kept']).toBe(0);
    expect(flakyRequests.length).toBeGreaterThan(0);
    expect(withoutTimings(again.result).changes).toEqual(withoutTimings(first.result).changes);
  });

  it('is analysed anew once the chart failure it was kept with is no longer remembered', async () => {
    const { repo, base, head } = repository();
    down = true;
    // Remembered for a millisecond: run out by the next analysis.
    const on = machine({ ...REMEMBERING, unavailableTtlMs: 1 });
    const first = await review(on, request(repo, base, head));
    expect(keptEntries(on)).toHaveLength(1);
    flakyRequests.length = 0;
    const again = await review(on, request(repo, base, head));
    expect(again.engines).toBe(1);
    expect(again.result.timings['analysis-kept']).toBe(0);
    expect(flakyRequests.length).toBeGreaterThan(0);
    expect(withoutTimings(again.result).changes).toEqual(withoutTimings(first.result).changes);
  });

  it('is analysed anew, and keeps nothing, without the render cache (--no-cache)', async () => {
    const { repo, base, head } = repository();
    down = true;
    const on = machine();
    const kept = await review(on, request(repo, base, head));
    const noCache: RenderMachine = { ...on, renderCache: undefined };
    const uncached = await review(noCache, request(repo, base, head));
    expect(uncached.engines).toBe(1);
    expect(uncached.result.timings['analysis-kept']).toBeUndefined();
    expect(withoutTimings(uncached.result)).toEqual(withoutTimings(kept.result));
  });

  it('is kept redacted: no Secret value of either revision is in what is kept', async () => {
    const { repo, base, head } = repository();
    down = true;
    const on = machine();
    const { result } = await review(on, request(repo, base, head));
    const secret = result.changes.find((c) => c.kind === 'Secret');
    expect(secret?.status).toBe('changed');
    const entries = keptEntries(on);
    expect(entries).toHaveLength(1);
    for (const text of entries) {
      expect(text).not.toContain(SECRET_VALUE);
      expect(text).not.toContain(Buffer.from(SECRET_VALUE).toString('base64'));
    }
    const again = await review(on, request(repo, base, head));
    expect(again.result.timings['analysis-kept']).toBe(1);
    expect(JSON.stringify(again.result)).not.toContain(SECRET_VALUE);
  });

  it('is kept once its chart can be fetched, and given back without asking', async () => {
    const { repo, base, head } = repository();
    const on = machine();
    down = false;
    try {
      const first = await review(on, request(repo, base, head));
      expect(first.result.errors).toEqual([]);
      flakyRequests.length = 0;
      const again = await review(on, request(repo, base, head));
      expect([again.engines, again.result.timings['analysis-kept']]).toEqual([0, 1]);
      expect(flakyRequests).toEqual([]);
      expect(withoutTimings(again.result)).toEqual(withoutTimings(first.result));
    } finally {
      down = true;
    }
  });
});

describe('fluxlens diff asked the same question again', () => {
  it('prints the same report, saying it was kept, and --no-cache works it out again', async () => {
    const { repo, base, head } = repository();
    down = true;
    const env = { FLUXLENS_CACHE_DIR: tempDir('fluxlens-kept-analysis-cli-') };
    const args = ['diff', '--repo', repo.dir, '--base', base, '--head', head];
    const diff = async (...more: string[]) => {
      const run = await runCli([...args, '--path', 'clusters/prod', ...more], { env });
      const result = JSON.parse(run.stdout) as AnalysisResult;
      return { code: run.code, result };
    };
    const first = await diff('--format', 'json');
    const again = await diff('--format', 'json');
    expect([first.result.timings['analysis-kept'], again.result.timings['analysis-kept']]).toEqual([
      0, 1,
    ]);
    expect(again.code).toBe(first.code);
    expect(withoutTimings(again.result)).toEqual(withoutTimings(first.result));
    const uncached = await diff('--format', 'json', '--no-cache');
    expect(uncached.result.timings['analysis-kept']).toBeUndefined();
    expect(withoutTimings(uncached.result)).toEqual(withoutTimings(first.result));
  });
});
