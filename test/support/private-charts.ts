/**
 * Private chart sources for the credential tests: a docker-registry holding `hello` 1.0.0
 * under charts/, fronted three ways (private-registry.ts: a Basic login, a token service
 * on another port, a token service on the registry's own port whose blobs redirect to a
 * TLS server on a third port); and an HTTP chart repository behind a Basic login with
 * repositories `private` and `cdn`, whose archives redirect to a TLS server on another
 * port. Operator files are written with registryConfig and read by the real loadConfig.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_CHART_NETWORK, type ChartNetwork } from '../../src/render/index.js';
import { fixtureCharts, makeChartRepository, packageChart, pushChart } from './chart-repo.js';
import { startChartServer, type ChartServer } from './chart-server.js';
import { startOciRegistry, type OciRegistry } from './oci-registry.js';
import { startPrivateRegistry, type Login, type PrivateRegistry } from './private-registry.js';
import { testRunner } from './render.js';
import { makeTestCertificate, trustTestCertificate } from './tls.js';

export const LOGINS = {
  oci: { username: 'robot', password: 'oci-pw-Zq9x7Kd2' },
  realm: { username: 'realm-robot', password: 'realm-pw-Zq9x7Kd2' },
  http: { username: 'charts', password: 'http-pw-Zq9x7Kd2' },
} as const satisfies Record<string, Login>;

export interface PrivateCharts {
  work: string;
  backend: OciRegistry;
  /** Asks for LOGINS.oci as a Basic login. */
  basic: PrivateRegistry;
  /** Tokens from a service on another port, which opens the registry for LOGINS.realm. */
  tokenElsewhere: PrivateRegistry;
  /** Tokens from /token on its own port for LOGINS.oci; blobs redirect to another port. */
  tokenHere: PrivateRegistry;
  /** Asks for LOGINS.http; `/cdn/hello-*` redirects to `cdn`. */
  http: ChartServer;
  /** https on another port, serving the same folder without asking. */
  cdn: ChartServer;
  /** The chart network of an operator file with these entries, through loadConfig. */
  network(auths: Record<string, object>): ChartNetwork;
  tempDir(prefix: string): string;
  /** Every credential value used, and every token given out so far. */
  secrets(): string[];
  stop(): Promise<void>;
}

export const basicEntry = (login: Login) => ({
  auth: Buffer.from(`${login.username}:${login.password}`).toString('base64'),
});

export async function startPrivateCharts(): Promise<PrivateCharts> {
  const runner = testRunner();
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-private-charts-'));
  const certificate = makeTestCertificate();
  const untrust = trustTestCertificate(certificate.cert);
  const backend = await startOciRegistry();
  const archive = await packageChart(runner, join(fixtureCharts, 'hello'), join(work, 'oci'));
  await pushChart(runner, archive, `${backend.url}/charts`);
  const www = join(work, 'www');
  for (const repo of ['private', 'cdn']) {
    mkdirSync(join(www, repo), { recursive: true });
    await makeChartRepository(runner, {
      dir: join(www, repo),
      chart: 'hello',
      versions: ['1.0.0'],
    });
  }
  const http = await startChartServer(www, { basicAuth: LOGINS.http });
  const cdn = await startChartServer(www, { tls: certificate });
  http.redirect('/cdn/hello-', `${cdn.url}/cdn/hello-`);
  const front = { backend: backend.host };
  const basic = await startPrivateRegistry({ ...front, auth: 'basic', login: LOGINS.oci });
  const tokenElsewhere = await startPrivateRegistry({
    ...front,
    auth: 'token-elsewhere',
    login: LOGINS.realm,
  });
  const tokenHere = await startPrivateRegistry({
    ...front,
    auth: 'token-here',
    login: LOGINS.oci,
    blobsElsewhere: certificate,
  });
  const registries = [basic, tokenElsewhere, tokenHere];
  let files = 0;
  return {
    work,
    backend,
    basic,
    tokenElsewhere,
    tokenHere,
    http,
    cdn,
    network: (auths) => {
      const path = join(work, `registry-config-${(files += 1)}.json`);
      writeFileSync(path, JSON.stringify({ auths }));
      const { credentials } = loadConfig({ FLUXLENS_REGISTRY_CONFIG: path }).chartNetwork;
      return { ...DEFAULT_CHART_NETWORK, credentials };
    },
    tempDir: (prefix) => mkdtempSync(join(work, prefix)),
    secrets: () => [
      ...Object.values(LOGINS).flatMap((login) => [login.password, basicEntry(login).auth]),
      ...registries.flatMap((r) => r.tokens),
    ],
    stop: async () => {
      untrust();
      await Promise.all([...registries.map((r) => r.stop()), http.close(), cdn.close()]);
      await backend.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** Every secret of `secrets` found in `text`, by position in the list (never the value). */
export function leaksIn(text: string, secrets: readonly string[]): number[] {
  return secrets.flatMap((secret, i) => (text.includes(secret) ? [i] : []));
}

/** The text of every file under `dir` (binary files as latin1), for leak checks. */
export function filesText(dir: string): string {
  const parts: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else parts.push(readFileSync(path, 'latin1'));
    }
  };
  walk(dir);
  return parts.join('\n');
}
