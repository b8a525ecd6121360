/**
 * Credentials go only to the host they are listed for (issue 10, point 3). Each server
 * records the Authorization header of every request it got, and the tests assert on
 * that: a redirect to a server on another port (https, so it is followed) gets nothing;
 * an OCI token service on another host gets nothing unless the operator's file lists it,
 * and then its own entry, never the registry's. A listed host is the operator's own, so
 * the refusal of private addresses does not apply to it, and only to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveOciChart } from '../../src/render/helm/chart/chart-oci.js';
import { resolveHttpChart } from '../../src/render/helm/chart/chart-http-repository.js';
import { ChartUnavailableError } from '../../src/render/helm/chart/chart-unavailable-error.js';
import type { ChartSourceContext } from '../../src/render/helm/chart/chart-source-context.js';
import type { ChartNetwork } from '../../src/render/index.js';
import {
  LOGINS,
  basicEntry,
  leaksIn,
  startPrivateCharts,
  type PrivateCharts,
} from '../support/private-charts.js';
import { testRunner } from '../support/render.js';

let world: PrivateCharts;
beforeAll(async () => {
  world = await startPrivateCharts();
});
afterAll(() => world?.stop());

const runner = testRunner();

function context(network: ChartNetwork): ChartSourceContext {
  return {
    runner,
    lookup: () => undefined,
    sourceDir: () => Promise.resolve(undefined),
    cacheDir: world.tempDir('cache-'),
    offline: false,
    timeoutMs: 30_000,
    maxChartBytes: 1 << 20,
    network,
  };
}

const pull = (host: string, network: ChartNetwork) =>
  resolveOciChart(
    {
      ref: `oci://${host}/charts/hello`,
      version: '1.0.0',
      insecure: false,
      sourceId: 'HelmRepository/apps/private',
    },
    context(network),
    world.tempDir('scratch-'),
  );

const authorizations = (seen: Array<{ authorization?: string }>) =>
  seen.map((r) => r.authorization ?? 'none');
const basic = (login: { username: string; password: string }) => `Basic ${basicEntry(login).auth}`;

describe('a redirect to a server on another port', () => {
  it('reaches an HTTP repository’s archive without the repository’s login', async () => {
    world.http.clearRequests();
    world.cdn.clearRequests();
    const network = world.network({ [world.http.url]: basicEntry(LOGINS.http) });
    const chart = await resolveHttpChart(
      { repoUrl: `${world.http.url}/cdn/`, chart: 'hello', version: '1.0.0', sourceId: 'x' },
      context(network),
    );
    expect(chart.meta.version).toBe('1.0.0');
    expect(world.http.seen).toEqual([
      { path: '/cdn/index.yaml', authorization: basic(LOGINS.http) },
      { path: '/cdn/hello-1.0.0.tgz', authorization: basic(LOGINS.http) },
    ]);
    expect(world.cdn.seen).toEqual([{ path: '/cdn/hello-1.0.0.tgz' }]);
  });

  it('reaches an OCI registry’s blobs without the registry’s token', async () => {
    world.tokenHere.clear();
    const network = world.network({ [world.tokenHere.host]: basicEntry(LOGINS.oci) });
    const { chart } = await pull(world.tokenHere.host, network);
    expect(chart.meta.name).toBe('hello');
    expect(world.tokenHere.seen.blobs.length).toBeGreaterThan(0);
    expect(authorizations(world.tokenHere.seen.blobs)).toEqual(
      world.tokenHere.seen.blobs.map(() => 'none'),
    );
    // The registry itself did get its token: the redirect is what dropped it.
    expect(authorizations(world.tokenHere.seen.registry)).toContain(
      `Bearer ${world.tokenHere.tokens.at(-1) ?? ''}`,
    );
  });
});

describe('the token service of an OCI registry', () => {
  it('on the registry’s own host gets the registry’s entry', async () => {
    world.tokenHere.clear();
    const network = world.network({ [world.tokenHere.host]: basicEntry(LOGINS.oci) });
    await pull(world.tokenHere.host, network);
    expect(authorizations(world.tokenHere.seen.realm)).toEqual([basic(LOGINS.oci)]);
  });

  it('on another host gets nothing when the file does not list it, and the chart is unavailable', async () => {
    world.tokenElsewhere.clear();
    const network = world.network({ [world.tokenElsewhere.host]: basicEntry(LOGINS.oci) });
    const err = await pull(world.tokenElsewhere.host, network).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ChartUnavailableError);
    expect((err as Error).message).toContain(
      `the token service ${world.tokenElsewhere.realmHost} has no entry in FLUXLENS_REGISTRY_CONFIG, so it was asked without credentials`,
    );
    expect(world.tokenElsewhere.seen.realm.length).toBeGreaterThan(0);
    expect(authorizations(world.tokenElsewhere.seen.realm)).toEqual(
      world.tokenElsewhere.seen.realm.map(() => 'none'),
    );
    const everything = JSON.stringify(world.tokenElsewhere.seen) + (err as Error).message;
    expect(everything).not.toContain(LOGINS.oci.password);
    expect(everything).not.toContain(basicEntry(LOGINS.oci).auth);
    expect(leaksIn((err as Error).message, world.secrets())).toEqual([]);
  });

  it('on another host gets its own entry when the file lists it, never the registry’s', async () => {
    world.tokenElsewhere.clear();
    const network = world.network({
      [world.tokenElsewhere.host]: basicEntry(LOGINS.oci),
      [world.tokenElsewhere.realmHost]: basicEntry(LOGINS.realm),
    });
    const { chart } = await pull(world.tokenElsewhere.host, network);
    expect(chart.meta.name).toBe('hello');
    expect(authorizations(world.tokenElsewhere.seen.realm)).toEqual([basic(LOGINS.realm)]);
    const sent = JSON.stringify(world.tokenElsewhere.seen);
    expect(sent).not.toContain(basicEntry(LOGINS.oci).auth);
  });
});

describe('the address policy, for hosts the operator listed', () => {
  it('lets a listed host on a private address serve charts where private addresses are denied', async () => {
    const listed = world.network({ [world.http.url]: basicEntry(LOGINS.http) });
    const chart = await resolveHttpChart(
      { repoUrl: `${world.http.url}/private/`, chart: 'hello', version: '1.0.0', sourceId: 'x' },
      context({ ...listed, privateAddresses: 'deny' }),
    );
    expect(chart.meta.version).toBe('1.0.0');
  });

  it('still refuses an unlisted port of the same address before asking it', async () => {
    world.cdn.clearRequests();
    const listed = world.network({ [world.http.url]: basicEntry(LOGINS.http) });
    const err = await resolveHttpChart(
      { repoUrl: `${world.cdn.url}/private/`, chart: 'hello', version: '1.0.0', sourceId: 'x' },
      context({ ...listed, privateAddresses: 'deny' }),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ChartUnavailableError);
    expect((err as Error).message).toMatch(/127\.0\.0\.1 is not a public address/);
    expect(world.cdn.seen).toEqual([]);
  });
});
