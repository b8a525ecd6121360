/**
 * Private chart registries (issue 10, point 3): charts behind a login render with the
 * operator's FLUXLENS_REGISTRY_CONFIG file and are unavailable (not a defect of the PR)
 * without it; a refused login says whose credentials were sent and never what they are;
 * helm never holds them; and the chart cache keeps charts, not credentials. Where the
 * credentials may go (token services, redirects) is private-registry-hosts.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { RenderOptions } from '../../src/render/index.js';
import { resolveOciChart } from '../../src/render/helm/chart/chart-oci.js';
import { resolveHttpChart } from '../../src/render/helm/chart/chart-http-repository.js';
import { ChartContentError } from '../../src/render/helm/chart/chart-content-error.js';
import { ChartUnavailableError } from '../../src/render/helm/chart/chart-unavailable-error.js';
import type { ChartSourceContext } from '../../src/render/helm/chart/chart-source-context.js';
import { DEFAULT_CHART_NETWORK, type ChartNetwork } from '../../src/render/index.js';
import { ToolRunner } from '../../src/tool-runner.js';
import { RecordingRunner } from '../support/chart-sources.js';
import {
  LOGINS,
  basicEntry,
  filesText,
  leaksIn,
  startPrivateCharts,
  type PrivateCharts,
} from '../support/private-charts.js';
import { analyzeBranches, testMachine } from '../support/render.js';
import { bootstrap, fluxKustomization, makeRepo, yamlStream } from '../support/repo.js';

let world: PrivateCharts;
beforeAll(async () => {
  world = await startPrivateCharts();
});
afterAll(() => world?.stop());

const config = loadConfig();
const runner = new RecordingRunner({
  toolsBinDir: config.toolsBinDir,
  path: config.path,
  baseEnv: config.toolEnv,
});

function context(network: ChartNetwork, cacheDir = world.tempDir('cache-')): ChartSourceContext {
  return {
    runner,
    lookup: () => undefined,
    sourceDir: () => Promise.resolve(undefined),
    cacheDir,
    offline: false,
    timeoutMs: 30_000,
    maxChartBytes: 1 << 20,
    network,
  };
}

const oci = (host: string) => ({
  ref: `oci://${host}/charts/hello`,
  version: '1.0.0',
  insecure: false,
  sourceId: 'HelmRepository/apps/private-oci',
});
const httpChart = (repo: string) => ({
  repoUrl: `${world.http.url}/${repo}/`,
  chart: 'hello',
  version: '1.0.0',
  sourceId: 'HelmRepository/apps/private-http',
});

async function failure(run: Promise<unknown>): Promise<Error> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Error)) throw new Error('the chart resolved');
  return err;
}

/** Both private charts, as HelmReleases of one cluster. */
function privateReleases(): string {
  const release = (name: string, repo: string) => ({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name, namespace: 'apps' },
    spec: {
      interval: '1h',
      chart: {
        spec: {
          chart: 'hello',
          version: '1.0.0',
          sourceRef: { kind: 'HelmRepository', name: repo },
        },
      },
    },
  });
  const repository = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'HelmRepository',
    metadata: { name, namespace: 'apps' },
    spec: { interval: '1h', ...spec },
  });
  return yamlStream(
    repository('oci', { type: 'oci', url: `oci://${world.basic.host}/charts` }),
    repository('web', { url: `${world.http.url}/private/` }),
    release('from-oci', 'oci'),
    release('from-web', 'web'),
  );
}

describe('a cluster with charts in private registries', () => {
  it('renders both with the operator file, and leaves both not assessed without it', async () => {
    const repo = makeRepo(
      {
        'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/apps.yaml': yamlStream(fluxKustomization('apps', './apps')),
        'apps/namespace.yaml': yamlStream({
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'apps' },
        }),
      },
      { git: true },
    );
    try {
      repo.commit('base');
      repo.write({ 'apps/releases.yaml': privateReleases() });
      repo.commit('pr');
      const review = (chartNetwork: ChartNetwork | undefined) =>
        analyzeBranches(repo.dir, 'HEAD~1', 'HEAD', {
          render: RenderOptions.parse({ offline: false }),
          machine: {
            ...testMachine,
            chartCacheDir: world.tempDir('cache-'),
            ...(chartNetwork ? { chartNetwork } : {}),
          },
        });
      const without = await review(undefined);
      const unassessed = without.clusters[0]?.unassessed ?? [];
      expect(unassessed.map((u) => [u.producer.name, u.reason])).toEqual([
        ['from-oci', 'chart unavailable'],
        ['from-web', 'chart unavailable'],
      ]);
      // Unavailability, never an error the PR introduced.
      expect(without.errors.map((e) => [e.producer.name, e.introduced])).toEqual([
        ['from-oci', false],
        ['from-web', false],
      ]);
      expect(without.errors[1]?.message).toMatch(/private\/index\.yaml answered HTTP 401$/);
      const network = world.network({
        [world.basic.host]: basicEntry(LOGINS.oci),
        [world.http.url]: { username: LOGINS.http.username, password: LOGINS.http.password },
      });
      const withFile = await review(network);
      expect(withFile.errors).toEqual([]);
      const fromCharts = withFile.changes.filter((c) => c.id.startsWith('/ConfigMap/'));
      expect(fromCharts.map((c) => [c.id, c.status])).toEqual([
        ['/ConfigMap/apps/from-oci-hello', 'added'],
        ['/ConfigMap/apps/from-web-hello', 'added'],
      ]);
      const everything = JSON.stringify([without, withFile]);
      expect(leaksIn(everything, world.secrets())).toEqual([]);
    } finally {
      repo.remove();
    }
  });
});

describe('credentials the registry refuses', () => {
  const wrong = { username: 'robot', password: 'not-the-password-Zq9x7' };

  it.each([
    [
      'an OCI registry',
      () => resolveOciChart(oci(world.basic.host), ctxWith(world.basic.host), world.tempDir('s-')),
    ],
    ['an HTTP repository', () => resolveHttpChart(httpChart('private'), ctxWith(world.http.url))],
  ])(
    'make a chart from %s unavailable, saying whose were sent and never what',
    async (_kind, run) => {
      const err = await failure(run());
      expect(err).toBeInstanceOf(ChartUnavailableError);
      const host = err.message.includes('oci://') ? world.basic.host : new URL(world.http.url).host;
      expect(err.message).toContain(
        `credentials for ${host} from FLUXLENS_REGISTRY_CONFIG were sent`,
      );
      expect(leaksIn(err.message + inspect(err), [...world.secrets(), wrong.password])).toEqual([]);
    },
  );

  function ctxWith(key: string): ChartSourceContext {
    return context(world.network({ [key]: basicEntry(wrong) }));
  }
});

describe('an OCI registry behind a login', () => {
  const network = () => world.network({ [world.basic.host]: basicEntry(LOGINS.oci) });

  it('resolves a version range through the registry’s tags', async () => {
    const request = { ...oci(world.basic.host), version: '>=0.1.0 <2' };
    const { chart, tag } = await resolveOciChart(request, context(network()), world.tempDir('s-'));
    expect([chart.meta.version, tag]).toEqual(['1.0.0', '1.0.0']);
  });

  it('reports a version the registry lacks as a chart error, as without credentials', async () => {
    const request = { ...oci(world.basic.host), version: '9.9.9' };
    const err = await failure(resolveOciChart(request, context(network()), world.tempDir('s-')));
    expect(err).toBeInstanceOf(ChartContentError);
    expect(err.message).toContain(`${world.basic.host}/charts/hello`);
    expect(err.message).not.toMatch(/127\.0\.0\.1:\d+\/[0-9a-f]{32}/);
  });
});

describe('what keeps credentials', () => {
  it('never hands them to helm: it pulls from a local relay without any', async () => {
    const before = runner.calls.length;
    const network = world.network({ [world.basic.host]: basicEntry(LOGINS.oci) });
    await resolveOciChart(oci(world.basic.host), context(network), world.tempDir('s-'));
    const pulls = runner.calls.slice(before).filter((c) => c[1] === 'pull');
    expect(pulls).toHaveLength(1);
    expect(pulls[0]?.[2]).toMatch(/^oci:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/charts\/hello$/);
    expect(leaksIn(JSON.stringify(pulls), world.secrets())).toEqual([]);
  });

  it('never uses the logins of the machine it runs on: helm’s, Docker’s or a keychain’s', async () => {
    const home = world.tempDir('home-');
    const logins = JSON.stringify({ auths: { [world.basic.host]: basicEntry(LOGINS.oci) } });
    mkdirSync(join(home, '.config', 'helm', 'registry'), { recursive: true });
    mkdirSync(join(home, '.docker'));
    writeFileSync(join(home, '.config', 'helm', 'registry', 'config.json'), logins);
    writeFileSync(join(home, '.docker', 'config.json'), logins);
    // A keychain helper on PATH that would answer with the right login.
    const helpers = world.tempDir('helpers-');
    const secret = JSON.stringify({ Username: LOGINS.oci.username, Secret: LOGINS.oci.password });
    const helper = join(helpers, 'docker-credential-secretservice');
    writeFileSync(helper, `#!/bin/sh\ncat >/dev/null\necho '${secret}'\n`, { mode: 0o755 });
    const onMachine = new ToolRunner({
      toolsBinDir: config.toolsBinDir,
      path: `${helpers}:${config.path}`,
      baseEnv: { ...config.toolEnv, HOME: home },
    });
    world.basic.clear();
    const ctx = { ...context(DEFAULT_CHART_NETWORK), runner: onMachine };
    const err = await failure(resolveOciChart(oci(world.basic.host), ctx, world.tempDir('s-')));
    expect(err).toBeInstanceOf(ChartUnavailableError);
    expect(world.basic.seen.registry.length).toBeGreaterThan(0);
    expect(world.basic.seen.registry.filter((r) => r.authorization !== undefined)).toEqual([]);
  });

  it('keeps a private chart in the cache by what it is, without the credentials', async () => {
    const network = world.network({ [world.http.url]: basicEntry(LOGINS.http) });
    const cacheDir = world.tempDir('cache-');
    const first = await resolveHttpChart(httpChart('private'), context(network, cacheDir));
    world.http.clearRequests();
    const again = await resolveHttpChart(httpChart('private'), context(network, cacheDir));
    expect(again.key).toBe(first.key);
    expect(world.http.requests).toEqual([]);
    expect(leaksIn(filesText(cacheDir), world.secrets())).toEqual([]);
  });

  it('shows only the hosts when the configuration is printed or logged', () => {
    const network = world.network({ [world.http.url]: basicEntry(LOGINS.http) });
    expect(JSON.parse(JSON.stringify(network))).toMatchObject({
      credentials: { hosts: [new URL(world.http.url).host] },
    });
    expect(
      leaksIn(JSON.stringify(network) + inspect(network, { depth: 9 }), world.secrets()),
    ).toEqual([]);
  });
});
