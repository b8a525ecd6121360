/**
 * The image check end to end: a repository whose policy asks for it, a pull request that
 * moves a Deployment's image, and a real registry (docker-registry) behind a front that
 * asks for a Bearer token, as public registries do, and counts every request. An existing
 * tag passes, a missing tag is a danger, an unreachable registry is "not checked", and a
 * repository that leaves the check off makes no request at all.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { readRegistryConfig } from '../../src/registry-config.js';
import {
  DEFAULT_CHART_NETWORK,
  RenderOptions,
  type RenderMachine,
} from '../../src/render/index.js';
import { freePort, startOciRegistry, type OciRegistry } from '../support/oci-registry.js';
import { startPrivateRegistry, type PrivateRegistry } from '../support/private-registry.js';
import { analyzeBranches, testMachine } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream as yaml,
  type TestRepo,
} from '../support/repo.js';

const LOGIN = { username: 'puller', password: 'pull-pw-Kq3v8Zt1' };
const ONLINE = { render: RenderOptions.parse({ offline: false }) };

let backend: OciRegistry;
let front: PrivateRegistry;
let locked: PrivateRegistry;
let repo: TestRepo;
let work: string;
let plainBase: string;
/** The manifest digest of acme/web:1.1.0. */
let pushed: string;
const UNKNOWN_DIGEST = `sha256:${'0'.repeat(64)}`;

function deployment(image: string, sidecar?: string): string {
  return yaml({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'apps' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'app', image },
            ...(sidecar ? [{ name: 'sidecar', image: sidecar }] : []),
          ],
        },
      },
    },
  });
}

/** A machine with a cache of its own, so each review asks the registry unless told. */
function machine(over: Partial<RenderMachine> = {}): RenderMachine {
  return {
    ...testMachine,
    chartCacheDir: mkdtempSync(join(work, 'cache-')),
    chartNetwork: { ...DEFAULT_CHART_NETWORK, connectTimeoutMs: 5000, responseTimeoutMs: 5000 },
    ...over,
  };
}

const imageFindings = (result: AnalysisResult) =>
  result.findings.filter((f) => f.rule === 'image-missing' || f.rule === 'image-unchecked');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'fluxlens-image-check-'));
  backend = await startOciRegistry();
  const digests: string[] = [];
  for (const tag of ['1.0.0', '1.1.0']) digests.push(await backend.pushImage('acme/web', tag));
  pushed = digests[1] ?? '';
  front = await startPrivateRegistry({
    backend: backend.host,
    auth: 'token-here',
    login: LOGIN,
    anonymousPull: true,
  });
  locked = await startPrivateRegistry({ backend: backend.host, auth: 'basic', login: LOGIN });
  const dead = `127.0.0.1:${await freePort()}`;
  repo = makeRepo(
    {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yaml(fluxKustomization('apps', './apps')),
      'apps/web/deployment.yaml': deployment(`${front.host}/acme/web:1.0.0`),
    },
    { git: true },
  );
  plainBase = repo.commit('base, without a policy');
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo.dir, ...args], {
      env: { PATH: process.env['PATH'] ?? '', HOME: repo.dir, GIT_CONFIG_NOSYSTEM: '1' },
    });
  const branch = (name: string, from: string, image: string, sidecar?: string) => {
    git('checkout', '-q', '-b', name, from);
    repo.write({ 'apps/web/deployment.yaml': deployment(image, sidecar) });
    repo.commit(`web ${image}`);
  };
  branch('plain', plainBase, `${front.host}/acme/web:9.9.9`);
  git('checkout', '-q', 'main');
  repo.write({ '.fluxlens.yaml': 'checkImages: true\n' });
  repo.commit('check images');
  branch('existing', 'main', `${front.host}/acme/web:1.1.0`);
  branch('missing', 'main', `${front.host}/acme/web:9.9.9`);
  branch('unreachable', 'main', `${dead}/acme/web:1.1.0`);
  branch('locked', 'main', `${locked.host}/acme/web:1.1.0`);
  branch(
    'digests',
    'main',
    `${front.host}/acme/web@${pushed}`,
    `${front.host}/acme/web:1.1.0@${UNKNOWN_DIGEST}`,
  );
}, 120_000);

beforeEach(() => {
  front.clear();
  locked.clear();
});

afterAll(async () => {
  repo?.remove();
  await front?.stop();
  await locked?.stop();
  await backend?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the image check', () => {
  it('makes no request at all when the policy leaves it off', async () => {
    const result = await analyzeBranches(repo.dir, plainBase, 'plain', {
      ...ONLINE,
      machine: machine(),
    });
    expect(result.changes.map((c) => c.name)).toEqual(['web']);
    expect(imageFindings(result)).toEqual([]);
    expect(front.seen.registry).toEqual([]);
    expect(front.seen.realm).toEqual([]);
  });

  it('passes an existing tag, asked through an anonymous Bearer token', async () => {
    const result = await analyzeBranches(repo.dir, 'main', 'existing', {
      ...ONLINE,
      machine: machine(),
    });
    expect(imageFindings(result)).toEqual([]);
    const manifest = '/v2/acme/web/manifests/1.1.0';
    expect(front.seen.registry.map((r) => r.path)).toEqual([manifest, manifest]);
    expect(front.seen.registry[0]?.authorization).toBeUndefined();
    expect(front.seen.registry[1]?.authorization).toMatch(/^Bearer anon-/);
    expect(front.accepts).toHaveLength(2);
    for (const accept of front.accepts) {
      expect(accept.split(', ').sort()).toEqual([
        'application/vnd.docker.distribution.manifest.list.v2+json',
        'application/vnd.docker.distribution.manifest.v2+json',
        'application/vnd.oci.image.index.v1+json',
        'application/vnd.oci.image.manifest.v1+json',
      ]);
    }
    expect(front.seen.realm).toHaveLength(1);
    expect(front.seen.realm[0]?.path).toContain('scope=repository%3Aacme%2Fweb%3Apull');
  });

  it('reports a missing tag as a danger: the rollout would fail', async () => {
    const result = await analyzeBranches(repo.dir, 'main', 'missing', {
      ...ONLINE,
      machine: machine(),
    });
    expect(imageFindings(result)).toEqual([
      {
        rule: 'image-missing',
        level: 'danger',
        cluster: 'clusters/prod',
        resource: { kind: 'Deployment', namespace: 'apps', name: 'web' },
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
        file: 'apps/web/deployment.yaml',
        line: 1,
        message: `Deployment apps/web: container app runs ${front.host}/acme/web:9.9.9, which ${front.host} does not have (HTTP 404 for its manifest): pods would fail to pull it and the rollout would stall.`,
      },
    ]);
    expect(result.verdict.level).toBe('danger');
  });

  it('asks by digest when there is one: a pushed digest passes, an unknown one is missing', async () => {
    const result = await analyzeBranches(repo.dir, 'main', 'digests', {
      ...ONLINE,
      machine: machine(),
    });
    expect(imageFindings(result).map((f) => [f.rule, f.message.split(',')[0]])).toEqual([
      [
        'image-missing',
        `Deployment apps/web: container sidecar runs ${front.host}/acme/web:1.1.0@${UNKNOWN_DIGEST}`,
      ],
    ]);
    const manifests = front.seen.registry.map((r) => r.path);
    expect(manifests).toContain(`/v2/acme/web/manifests/${pushed}`);
    expect(manifests).toContain(`/v2/acme/web/manifests/${UNKNOWN_DIGEST}`);
  });

  it('says an unreachable registry was not checked, and never calls the image missing', async () => {
    const result = await analyzeBranches(repo.dir, 'main', 'unreachable', {
      ...ONLINE,
      machine: machine(),
    });
    const findings = imageFindings(result);
    expect(findings.map((f) => [f.rule, f.level])).toEqual([['image-unchecked', 'info']]);
    expect(findings[0]?.message).toMatch(
      /runs 127\.0\.0\.1:\d+\/acme\/web:1\.1\.0, which was not checked: cannot fetch http:\/\/127\.0\.0\.1:\d+\/v2\/acme\/web\/manifests\/1\.1\.0: 127\.0\.0\.1:\d+ refused the connection \(ECONNREFUSED\)\.$/,
    );
    expect(result.verdict.level).toBe('info');
  });

  it('keeps a registry\'s "present" in the cache: the next review asks nothing', async () => {
    const cached = machine();
    await analyzeBranches(repo.dir, 'main', 'existing', { ...ONLINE, machine: cached });
    front.clear();
    const again = await analyzeBranches(repo.dir, 'main', 'existing', {
      ...ONLINE,
      machine: cached,
    });
    expect(imageFindings(again)).toEqual([]);
    expect(front.seen.registry).toEqual([]);
  });

  it('asks again about a missing image when the same review is asked again (it may be pushed since); a present one is kept', async () => {
    const withRenderCache = () =>
      machine({ renderCache: { dir: mkdtempSync(join(work, 'render-')), maxBytes: 64 << 20 } });
    const twice = async (branch: string) => {
      const cached = withRenderCache();
      await analyzeBranches(repo.dir, 'main', branch, { ...ONLINE, machine: cached });
      front.clear();
      return analyzeBranches(repo.dir, 'main', branch, { ...ONLINE, machine: cached });
    };
    const missing = await twice('missing');
    expect(missing.timings?.['analysis-kept']).toBe(0);
    expect(front.seen.registry.map((r) => r.path)).toContain('/v2/acme/web/manifests/9.9.9');
    expect(imageFindings(missing).map((f) => f.rule)).toEqual(['image-missing']);
    const present = await twice('existing');
    expect(present.timings?.['analysis-kept']).toBe(1);
    expect(front.seen.registry).toEqual([]);
  });

  it('answers offline from the cache only, else says the image was not checked', async () => {
    const offline = { render: RenderOptions.parse({ offline: true }) };
    const result = await analyzeBranches(repo.dir, 'main', 'existing', {
      ...offline,
      machine: machine(),
    });
    expect(imageFindings(result).map((f) => f.message)).toEqual([
      `Deployment apps/web: container app runs ${front.host}/acme/web:1.1.0, which was not checked: offline, and the cache holds no answer for it.`,
    ]);
    expect(front.seen.registry).toEqual([]);
  });

  it("uses the operator's registry login, and says so when the registry refuses without one", async () => {
    const file = join(work, 'registry-config.json');
    const auth = Buffer.from(`${LOGIN.username}:${LOGIN.password}`).toString('base64');
    writeFileSync(file, JSON.stringify({ auths: { [locked.host]: { auth } } }));
    const credentials = readRegistryConfig(file);
    const withLogin = machine();
    withLogin.chartNetwork = { ...DEFAULT_CHART_NETWORK, credentials };
    const passed = await analyzeBranches(repo.dir, 'main', 'locked', {
      ...ONLINE,
      machine: withLogin,
    });
    expect(imageFindings(passed)).toEqual([]);
    expect(locked.seen.registry.map((r) => r.authorization)).toEqual([`Basic ${auth}`]);

    const refused = await analyzeBranches(repo.dir, 'main', 'locked', {
      ...ONLINE,
      machine: machine(),
    });
    const messages = imageFindings(refused).map((f) => f.message);
    expect(messages).toEqual([
      expect.stringContaining(
        `which was not checked: http://${locked.host}/v2/acme/web/manifests/1.1.0 answered HTTP 401`,
      ),
    ]);
    expect(JSON.stringify(refused)).not.toContain(LOGIN.password);
  });
});
