/**
 * Chart sources that cannot be reached (issue 22, point 2): an OCI registry is held to
 * the same connect and response bounds as an HTTP repository, whether it never answers or
 * stops after its headers; a name that does not resolve and a refused port end the fetch
 * at once, naming the host and the cause; and a failed fetch is remembered beside the
 * chart cache, so the next render (in another process too) reports it without asking
 * again, until the memory runs out or the CLI asks again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { resolveHttpChart } from '../../src/render/helm/chart/chart-http-repository.js';
import { resolveOciChart } from '../../src/render/helm/chart/chart-oci.js';
import type { ChartSourceContext } from '../../src/render/helm/chart/chart-source-context.js';
import { ChartUnavailableError } from '../../src/render/helm/chart/chart-unavailable-error.js';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_CHART_NETWORK, type ChartNetwork } from '../../src/render/index.js';
import { makeChartRepository } from '../support/chart-repo.js';
import { RecordingRunner } from '../support/chart-sources.js';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/oci-registry.js';
import { basicEntry, LOGINS } from '../support/private-charts.js';
import { bootstrap, fluxKustomization, makeRepo } from '../support/repo.js';

const work = mkdtempSync(join(tmpdir(), 'fluxlens-unreachable-'));
const config = loadConfig();
const runner = new RecordingRunner({
  toolsBinDir: config.toolsBinDir,
  path: config.path,
  baseEnv: config.toolEnv,
});

/** Bounds of one second; the tool timeout is past vitest's, so only a bound can end a test. */
const BOUNDED: ChartNetwork = {
  ...DEFAULT_CHART_NETWORK,
  connectTimeoutMs: 1000,
  responseTimeoutMs: 1000,
};
const REMEMBERING: ChartNetwork = { ...BOUNDED, unavailableTtlMs: 300_000 };

let caches = 0;
function context(network: ChartNetwork, cacheDir?: string): ChartSourceContext {
  return {
    runner,
    lookup: () => undefined,
    sourceDir: () => Promise.resolve(undefined),
    cacheDir: cacheDir ?? join(work, `cache-${(caches += 1)}`),
    offline: false,
    timeoutMs: 120_000,
    maxChartBytes: 1 << 20,
    network,
  };
}

async function listen(server: Server | TcpServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `127.0.0.1:${address.port}`;
}

const sockets: Socket[] = [];
let silent: TcpServer;
let silentHost: string;
let stalling: Server;
let stallingHost: string;
/** Answers 503 to everything while `down`, and serves `hello` 1.0.0 (HTTP) otherwise. */
let flaky: Server;
let flakyHost: string;
let flakyDown = true;
const flakyRequests: string[] = [];
let refusedHost: string;
const unresolvable = 'charts.fluxlens.invalid';

beforeAll(async () => {
  silent = createTcpServer((socket) => sockets.push(socket));
  silentHost = await listen(silent);
  // Sends the status line and headers of a long answer, then nothing.
  stalling = createHttpServer((_req, res) => {
    sockets.push(res.socket as Socket);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '4096' });
    res.write('apiVersion: v1\n');
  });
  stallingHost = await listen(stalling);
  const www = join(work, 'www');
  await makeChartRepository(runner, { dir: www, chart: 'hello', versions: ['1.0.0'] });
  flaky = createHttpServer((req, res) => {
    flakyRequests.push(req.url ?? '');
    if (flakyDown) return void res.writeHead(503).end();
    const name = (req.url ?? '').replace(/^\/charts\//, '');
    if (!/^[\w.-]+$/.test(name)) return void res.writeHead(404).end();
    try {
      res.end(readFileSync(join(www, name)));
    } catch {
      res.writeHead(404).end();
    }
  });
  flakyHost = await listen(flaky);
  refusedHost = `127.0.0.1:${await freePort()}`;
});

afterAll(async () => {
  sockets.forEach((s) => s.destroy());
  await Promise.all(
    [silent, stalling, flaky].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  );
  rmSync(work, { recursive: true, force: true });
});

const httpRequest = (host: string, version = '1.0.0') => ({
  repoUrl: `http://${host}/charts/`,
  chart: 'hello',
  version,
  sourceId: 'HelmRepository/apps/charts',
});
const ociRequest = (host: string, version = '1.0.0') => ({
  ref: `oci://${host}/charts/hello`,
  version,
  insecure: true,
  sourceId: 'HelmRepository/apps/registry',
});

type Kind = 'an HTTP repository' | 'an OCI registry';
function resolve(kind: Kind, host: string, ctx: ChartSourceContext, version?: string) {
  return kind === 'an HTTP repository'
    ? resolveHttpChart(httpRequest(host, version), ctx)
    : resolveOciChart(ociRequest(host, version), ctx, work);
}

async function unavailable(run: Promise<unknown>): Promise<ChartUnavailableError> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ChartUnavailableError)) throw new Error(`not unavailable: ${String(err)}`);
  return err;
}

const pulls = () => runner.calls.filter((c) => c[0] === 'helm' && c[1] === 'pull').length;
const KINDS: Kind[] = ['an HTTP repository', 'an OCI registry'];

describe('a chart server that holds the connection', () => {
  it.each(KINDS)(
    'releases a render waiting on %s that accepts and never answers at the response bound',
    async (kind) => {
      const err = await unavailable(resolve(kind, silentHost, context(BOUNDED)));
      expect(err.code).toBe('chart-unavailable');
      expect(err.message).toMatch(
        new RegExp(
          `cannot fetch http://${silentHost}/\\S+: ${silentHost} did not answer within 1 s$`,
        ),
      );
    },
  );

  it.each(KINDS)(
    'releases a render waiting on %s that sends its headers and then stops',
    async (kind) => {
      const err = await unavailable(resolve(kind, stallingHost, context(BOUNDED)));
      expect(err.message).toMatch(
        new RegExp(`reading http://${stallingHost}/\\S+: ${stallingHost} stopped sending for 1 s$`),
      );
    },
  );
});

describe('a chart source that cannot be reached at all', () => {
  it.each(KINDS)('ends a fetch from %s on a refused port at once', async (kind) => {
    const before = pulls();
    const err = await unavailable(resolve(kind, refusedHost, context(BOUNDED)));
    expect(err.message).toContain(`${refusedHost} refused the connection (ECONNREFUSED)`);
    // helm, when it runs, runs once and is stopped: nothing tries again.
    expect(pulls() - before).toBe(kind === 'an OCI registry' ? 1 : 0);
  });

  it.each(KINDS)('ends a fetch from %s whose name does not resolve at once', async (kind) => {
    const err = await unavailable(resolve(kind, unresolvable, context(BOUNDED)));
    expect(err.message).toMatch(
      /charts\.fluxlens\.invalid does not resolve \(ENOTFOUND\)|the DNS lookup of charts\.fluxlens\.invalid failed \(EAI_AGAIN\)/,
    );
  });
});

describe('a chart that could not be fetched', () => {
  it.each(KINDS)(
    'is reported from memory by the next render of %s sharing the cache, without asking',
    async (kind) => {
      const cacheDir = join(work, `memory-${kind.length}`);
      flakyDown = true;
      flakyRequests.length = 0;
      const first = await unavailable(resolve(kind, flakyHost, context(REMEMBERING, cacheDir)));
      expect(first.message).toMatch(
        /answered HTTP 503 \(failed at \d\d:\d\d:\d\d UTC; remembered, not tried again before \d\d:\d\d:\d\d UTC\)$/,
      );
      const asked = flakyRequests.length;
      const pulled = pulls();
      // A new context stands for the next process: only the cache folder is shared.
      const again = await unavailable(resolve(kind, flakyHost, context(REMEMBERING, cacheDir)));
      expect(again.code).toBe('chart-unavailable');
      expect(again.notCached).toBe(false);
      // The same words: a review failing at base and head on it shows one error.
      expect(again.message).toBe(first.message);
      expect([flakyRequests.length, pulls()]).toEqual([asked, pulled]);
    },
  );

  it('is asked for again when the render asks to retry, and forgotten once it is fetched', async () => {
    // A range: every online render asks the repository, so only the memory can spare it.
    const range = '>=1.0.0';
    const cacheDir = join(work, 'memory-retry');
    const fetch = (network: ChartNetwork) =>
      resolveHttpChart(httpRequest(flakyHost, range), context(network, cacheDir));
    flakyDown = true;
    await unavailable(fetch(REMEMBERING));
    flakyDown = false;
    flakyRequests.length = 0;
    await unavailable(fetch(REMEMBERING));
    expect(flakyRequests).toEqual([]);
    const retried = await fetch({ ...REMEMBERING, retryUnavailable: true });
    expect(retried.meta.version).toBe('1.0.0');
    expect(flakyRequests).toEqual(['/charts/index.yaml', '/charts/hello-1.0.0.tgz']);
    const later = await fetch(REMEMBERING);
    expect(later.key).toBe(retried.key);
    expect(flakyRequests).toEqual([
      '/charts/index.yaml',
      '/charts/hello-1.0.0.tgz',
      '/charts/index.yaml',
    ]);
  });

  it.each([
    ['with a memory of 0 seconds', () => ({ ...BOUNDED, unavailableTtlMs: 0 }), () => REMEMBERING],
    [
      'when the operator adds a login for the host',
      () => REMEMBERING,
      () => ({ ...REMEMBERING, credentials: credentialsFor(flakyHost) }),
    ],
  ])('is asked for again %s', async (name, first, second) => {
    const cacheDir = join(work, `memory-${name.replaceAll(' ', '-')}`);
    flakyDown = true;
    await unavailable(resolve('an HTTP repository', flakyHost, context(first(), cacheDir)));
    flakyRequests.length = 0;
    const err = await unavailable(
      resolve('an HTTP repository', flakyHost, context(second(), cacheDir)),
    );
    expect(err.message).toMatch(/answered HTTP 503/);
    expect(flakyRequests.length).toBeGreaterThan(0);
  });

  it('stays out of offline renders, which never fetch', async () => {
    const cacheDir = join(work, 'memory-offline');
    flakyDown = true;
    await unavailable(resolve('an HTTP repository', flakyHost, context(REMEMBERING, cacheDir)));
    const offline = { ...context(REMEMBERING, cacheDir), offline: true };
    const err = await unavailable(resolve('an HTTP repository', flakyHost, offline));
    expect(err.notCached).toBe(true);
    expect(err.message).toMatch(/is not in the cache \(offline\)$/);
  });
});

/** The operator's file with a login for `host`, read by the real loadConfig. */
function credentialsFor(host: string): ChartNetwork['credentials'] {
  const path = join(work, 'registry-config.json');
  writeFileSync(path, JSON.stringify({ auths: { [host]: basicEntry(LOGINS.http) } }));
  return loadConfig({ FLUXLENS_REGISTRY_CONFIG: path }).chartNetwork.credentials;
}

describe('fluxlens render --retry-unavailable-charts', () => {
  it('reports a remembered failure on the next run, and asks again with the flag', async () => {
    const repo = makeRepo({
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': stringify(fluxKustomization('apps', './apps')),
      'apps/hello.yaml': [
        {
          apiVersion: 'source.toolkit.fluxcd.io/v1',
          kind: 'HelmRepository',
          metadata: { name: 'charts', namespace: 'apps' },
          spec: { interval: '1h', url: `http://${flakyHost}/charts/` },
        },
        {
          apiVersion: 'helm.toolkit.fluxcd.io/v2',
          kind: 'HelmRelease',
          metadata: { name: 'hello', namespace: 'apps' },
          spec: {
            interval: '1h',
            chart: {
              spec: {
                chart: 'hello',
                version: '1.0.0',
                sourceRef: { kind: 'HelmRepository', name: 'charts' },
              },
            },
          },
        },
      ]
        .map((d) => stringify(d))
        .join('---\n'),
    });
    const env = { FLUXLENS_CACHE_DIR: join(work, 'cli-cache') };
    const render = async (...flags: string[]) => {
      const run = await runCli(
        ['render', '--repo', repo.dir, '--path', 'clusters/prod', '--output', 'json', ...flags],
        { env },
      );
      expect(run.code).toBe(0);
      const out = JSON.parse(run.stdout) as { errors: { message: string; code?: string }[] };
      return out.errors.map((e) => [e.code, e.message]);
    };
    try {
      flakyDown = true;
      flakyRequests.length = 0;
      const first = await render();
      expect(first).toEqual([
        ['chart-unavailable', expect.stringMatching(/answered HTTP 503 \(failed at .*\)$/)],
      ]);
      const asked = flakyRequests.length;
      expect(await render()).toEqual(first);
      expect(flakyRequests.length).toBe(asked);
      flakyDown = false;
      expect(await render('--retry-unavailable-charts')).toEqual([]);
      expect(flakyRequests.length).toBeGreaterThan(asked);
    } finally {
      repo.remove();
    }
  });
});
