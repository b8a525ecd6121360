/**
 * Hostile chart servers (issue 11, points 5 and 9): a server that accepts and never
 * answers fails in seconds, not at the tool timeout; redirects stay within their origin
 * unless they go to https; repository-declared chart hosts on loopback or private
 * addresses are refused where the operator denies them (the service's default); a refused
 * fetch does not echo what the server said.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchChartFile } from '../../src/render/helm/chart/chart-fetch.js';
import { DEFAULT_CHART_NETWORK, type ChartNetwork } from '../../src/render/index.js';
import { isNonPublicAddress } from '../../src/render/helm/chart/chart-network.js';
import { resolveOciChart } from '../../src/render/helm/chart/chart-oci.js';
import { ChartContentError } from '../../src/render/helm/chart/chart-content-error.js';
import { ChartUnavailableError } from '../../src/render/helm/chart/chart-unavailable-error.js';
import { RenderOptions } from '../../src/render/index.js';
import { testMachine, testRunner, analyzeBranches } from '../support/render.js';
import { bootstrap, fluxKustomization, makeRepo, yamlStream } from '../support/repo.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DENY: ChartNetwork = { ...DEFAULT_CHART_NETWORK, privateAddresses: 'deny' };
const QUICK: ChartNetwork = { ...DEFAULT_CHART_NETWORK, responseTimeoutMs: 300 };

let silent: TcpServer;
let silentUrl: URL;
const sockets: Socket[] = [];
let web: Server;
let webUrl: string;
let other: Server;
let otherUrl: string;
const requests: string[] = [];

async function listen(server: Server | TcpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  // Accepts every connection and never says a word.
  silent = createTcpServer((socket) => sockets.push(socket));
  silentUrl = new URL(`http://127.0.0.1:${await listen(silent)}/index.yaml`);
  other = createHttpServer((req, res) => {
    requests.push(`other ${req.url}`);
    res.end('apiVersion: v1\nentries: {}\n');
  });
  otherUrl = `http://127.0.0.1:${await listen(other)}`;
  web = createHttpServer((req, res) => {
    requests.push(`web ${req.url}`);
    if (req.url === '/elsewhere/index.yaml') {
      res.writeHead(302, { location: `${otherUrl}/index.yaml` }).end();
    } else if (req.url === '/moved/index.yaml') {
      res.writeHead(301, { location: '/charts/index.yaml' }).end();
    } else if (req.url === '/charts/index.yaml') {
      res.end('apiVersion: v1\nentries: {}\n');
    } else {
      res.statusMessage = 'token tok-status-1234 is revoked';
      res.writeHead(403).end('you are not allowed: tok-body-5678');
    }
  });
  webUrl = `http://127.0.0.1:${await listen(web)}`;
});

afterAll(async () => {
  sockets.forEach((s) => s.destroy());
  await Promise.all(
    [silent, web, other].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  );
});

const limits = (network: ChartNetwork) => ({ timeoutMs: 60_000, maxBytes: 1 << 20, network });
const fetchError = (url: string | URL, network: ChartNetwork) =>
  fetchChartFile(new URL(url), limits(network), 'chart hello').then(
    () => undefined,
    (err: unknown) => err,
  );

describe('a chart server that accepts and never answers', () => {
  it('fails at the response bound, as unavailable, not at the tool timeout', async () => {
    const err = await fetchError(silentUrl, QUICK);
    expect(err).toBeInstanceOf(ChartUnavailableError);
    expect((err as Error).message).toBe(
      `chart unavailable: chart hello: cannot fetch ${silentUrl.href}: ${silentUrl.host} did not answer within 300 ms`,
    );
  });
});

describe('redirects', () => {
  it('follows one within the declared origin', async () => {
    const body = await fetchChartFile(
      new URL(`${webUrl}/moved/index.yaml`),
      limits(DEFAULT_CHART_NETWORK),
      'chart hello',
    );
    expect(body.toString()).toContain('entries');
  });

  it('refuses one to another port over plain http, without asking there', async () => {
    requests.length = 0;
    const err = await fetchError(`${webUrl}/elsewhere/index.yaml`, DEFAULT_CHART_NETWORK);
    expect(err).toBeInstanceOf(ChartUnavailableError);
    expect((err as Error).message).toMatch(/redirects outside its origin to plain http/);
    expect(requests).toEqual(['web /elsewhere/index.yaml']);
  });
});

describe('what a refused fetch says', () => {
  it('gives the status code, never the status text or body the server sent', async () => {
    const err = await fetchError(`${webUrl}/secret/index.yaml`, DEFAULT_CHART_NETWORK);
    expect((err as Error).message).toBe(
      `chart unavailable: chart hello: ${webUrl}/secret/index.yaml answered HTTP 403`,
    );
  });
});

describe('repository-declared hosts on non-public addresses, when the operator denies them', () => {
  it.each([
    ['an IPv4 loopback literal', (port: string) => `http://127.0.0.1:${port}/charts/index.yaml`],
    [
      'a name that resolves to loopback',
      (port: string) => `http://localhost:${port}/charts/index.yaml`,
    ],
    ['an IPv6 loopback literal', (port: string) => `http://[::1]:${port}/charts/index.yaml`],
  ])('refuses %s before sending anything', async (_case, url) => {
    requests.length = 0;
    const err = await fetchError(url(new URL(webUrl).port), DENY);
    expect(err).toBeInstanceOf(ChartUnavailableError);
    expect((err as Error).message).toMatch(/is not a public address/);
    expect(requests).toEqual([]);
  });

  it('fetches the same URL when the operator allows them', async () => {
    const body = await fetchChartFile(
      new URL(`${webUrl}/charts/index.yaml`),
      limits(DEFAULT_CHART_NETWORK),
      'chart hello',
    );
    expect(body.toString()).toContain('entries');
  });

  it('refuses an OCI registry on loopback before helm pulls from it', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'fluxlens-oci-deny-'));
    try {
      const err = await resolveOciChart(
        {
          ref: `oci://127.0.0.1:${new URL(webUrl).port}/charts/hello`,
          version: '1.0.0',
          insecure: true,
          sourceId: 'OCIRepository/apps/hello',
        },
        {
          runner: testRunner(),
          lookup: () => undefined,
          sourceDir: () => Promise.resolve(undefined),
          cacheDir,
          offline: false,
          timeoutMs: 30_000,
          maxChartBytes: 1 << 20,
          network: DENY,
        },
        cacheDir,
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ChartUnavailableError);
      expect((err as Error).message).toMatch(/is not a public address/);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});

describe('the address policy from the machine to the chart', () => {
  it('makes a release whose repository is on loopback not assessed, naming the address', async () => {
    const repo = makeRepo(
      {
        'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/apps.yaml': yamlStream(fluxKustomization('apps', './apps')),
      },
      { git: true },
    );
    try {
      repo.commit('base');
      repo.write({
        'apps/hello.yaml': yamlStream(
          {
            apiVersion: 'source.toolkit.fluxcd.io/v1',
            kind: 'HelmRepository',
            metadata: { name: 'internal', namespace: 'apps' },
            spec: { interval: '1h', url: `${webUrl}/charts/` },
          },
          {
            apiVersion: 'helm.toolkit.fluxcd.io/v2',
            kind: 'HelmRelease',
            metadata: { name: 'hello', namespace: 'apps' },
            spec: {
              interval: '1h',
              chart: {
                spec: { chart: 'hello', sourceRef: { kind: 'HelmRepository', name: 'internal' } },
              },
            },
          },
        ),
      });
      repo.commit('pr');
      requests.length = 0;
      const result = await analyzeBranches(repo.dir, 'HEAD~1', 'HEAD', {
        render: RenderOptions.parse({ offline: false }),
        machine: { ...testMachine, chartNetwork: DENY },
      });
      expect(result.clusters[0]?.unassessed).toEqual([
        {
          producer: { kind: 'HelmRelease', namespace: 'apps', name: 'hello' },
          side: 'head',
          reason: 'chart unavailable',
        },
      ]);
      const ofHello = result.errors.filter((e) => e.producer.name === 'hello');
      expect(ofHello.map((e) => e.message)).toEqual([
        expect.stringMatching(/127\.0\.0\.1 is not a public address/),
      ]);
      expect(requests).toEqual([]);
    } finally {
      repo.remove();
    }
  });
});

describe('which addresses are not public', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.10',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])('%s is not', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['1.1.1.1', '140.82.112.3', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is',
    (address) => {
      expect(isNonPublicAddress(address)).toBe(false);
    },
  );
});

describe('errors that are the repository’s own', () => {
  it('keeps a 404 from a reachable server a content error', async () => {
    const missing = createHttpServer((_req, res) => res.writeHead(404).end());
    const port = await listen(missing);
    try {
      const err = await fetchError(`http://127.0.0.1:${port}/index.yaml`, DEFAULT_CHART_NETWORK);
      expect(err).toBeInstanceOf(ChartContentError);
    } finally {
      await new Promise<void>((resolve) => missing.close(() => resolve()));
    }
  });
});
