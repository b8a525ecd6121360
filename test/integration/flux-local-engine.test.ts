/**
 * The flux-local engine against the builtin engine, with the real flux-local CLI (run
 * scripts/install-tools first). The comparison clusters come from flux-local's own test
 * data in ../shared/fixtures/flux-local (skipped when that folder is absent); the small
 * fixtures under test/fixtures/flux-local-engine pin the deviations documented at the top
 * of src/render/flux-local-engine.ts. HelmReleases are inflated offline, from charts in
 * the repository only (test/support/render.ts testHelmSettings).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { SetupError } from '../../src/errors.js';
import { BuiltinEngine } from '../../src/render/builtin/engine.js';
import {
  DEFAULT_RENDER_SETTINGS,
  type RenderRequest,
  type RenderSettings,
} from '../../src/render/index.js';
import {
  FLUX_LOCAL_RUN,
  FluxLocalEngine,
  namedKustomizations,
  parseKustomizationTable,
} from '../../src/render/flux-local/index.js';
import {
  objectMeta,
  producerKey,
  type Manifest,
  type Producer,
  type RenderedCluster,
  type RenderedObject,
} from '../../src/model/render.js';
import { copyTree } from '../../src/render/workspace/tree.js';
import { ToolRunner } from '../../src/tool-runner.js';
import { testHelmSettings } from '../support/render.js';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sharedFixtures = resolve(projectRoot, '..', 'shared', 'fixtures', 'flux-local');
const haveShared = existsSync(join(sharedFixtures, 'testdata'));
const ownFixtures = join(projectRoot, 'test', 'fixtures', 'flux-local-engine');

function makeRunner(): ToolRunner {
  const config = loadConfig();
  return new ToolRunner({
    toolsBinDir: config.toolsBinDir,
    path: config.path,
    baseEnv: config.toolEnv,
  });
}

const runner = makeRunner();
// HelmRelease inflation is compared separately: both engines render Kustomizations here.
const kustomizationsOnly = {
  ...DEFAULT_RENDER_SETTINGS,
  helm: { ...DEFAULT_RENDER_SETTINGS.helm, enabled: false },
};
const builtin = new BuiltinEngine({ runner, settings: kustomizationsOnly });
const fluxLocal = new FluxLocalEngine({ runner, settings: kustomizationsOnly });

/** Both engines with HelmReleases inflated, offline; `helm` overrides testHelmSettings. */
function helmEngines(helm: Partial<RenderSettings['helm']> = {}): {
  builtin: BuiltinEngine;
  fluxLocal: FluxLocalEngine;
} {
  const settings = { ...DEFAULT_RENDER_SETTINGS, helm: { ...testHelmSettings, ...helm } };
  return {
    builtin: new BuiltinEngine({ runner, settings }),
    fluxLocal: new FluxLocalEngine({ runner, settings }),
  };
}

const scratch: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fluxlens-fl-test-'));
  scratch.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

/** flux-local's layout rule: its fixtures' paths are relative to `<root>/tests/testdata`. */
async function sharedRepo(): Promise<string> {
  const root = await tempDir();
  await copyTree(join(sharedFixtures, 'testdata'), join(root, 'tests', 'testdata'), {
    mode: 'copy',
  });
  return root;
}

/** (producer, apiVersion, kind, namespace, name) */
function identity(producer: { namespace: string; name: string }, manifest: Manifest): string {
  const m = objectMeta(manifest);
  return `${producer.namespace}/${producer.name} ${m.apiVersion} ${m.kind} ${m.namespace ?? ''} ${m.name}`;
}

function byIdentity(cluster: RenderedCluster): Map<string, Manifest[]> {
  const out = new Map<string, Manifest[]>();
  for (const o of cluster.objects) {
    const key = identity(o.producer, o.manifest);
    out.set(key, [...(out.get(key) ?? []), o.manifest]);
  }
  return out;
}

function identities(cluster: RenderedCluster): string[] {
  return cluster.objects.map((o) => identity(o.producer, o.manifest)).sort();
}

/** What both engines should agree on about a producer (definedIn is a known deviation). */
function producerFacts(p: Producer): unknown {
  return {
    key: producerKey(p),
    path: p.path,
    source: p.source,
    suspend: p.suspend,
    prune: p.prune,
    dependsOn: p.dependsOn,
    failed: p.error !== undefined,
    skipped: p.skipped !== undefined,
  };
}

function find(cluster: RenderedCluster, kind: string, name: string): Manifest[] {
  return cluster.objects
    .map((o) => o.manifest)
    .filter((m) => objectMeta(m).kind === kind && objectMeta(m).name === name);
}

function spec(manifest: Manifest | undefined): Record<string, unknown> {
  return (manifest?.['spec'] ?? {}) as Record<string, unknown>;
}

function data(manifest: Manifest | undefined): Record<string, unknown> {
  return (manifest?.['data'] ?? {}) as Record<string, unknown>;
}

/**
 * Asserts both renders list the same objects with the same manifests, apart from the
 * identities in `only` (present in one engine only, checked by the caller).
 */
function expectSameObjects(
  fromBuiltin: RenderedCluster,
  fromFluxLocal: RenderedCluster,
  only: { builtin: string[]; fluxLocal: string[] } = { builtin: [], fluxLocal: [] },
): void {
  const strip = (ids: string[], drop: string[]): string[] => {
    const left = [...ids];
    for (const d of drop) {
      const at = left.indexOf(d);
      expect(at, `expected deviation ${d}`).toBeGreaterThanOrEqual(0);
      left.splice(at, 1);
    }
    return left;
  };
  expect(strip(identities(fromFluxLocal), only.fluxLocal)).toEqual(
    strip(identities(fromBuiltin), only.builtin),
  );
  const fl = byIdentity(fromFluxLocal);
  for (const [key, manifests] of byIdentity(fromBuiltin)) {
    if (only.builtin.includes(key)) continue;
    expect(fl.get(key), key).toEqual(manifests);
  }
}

const ORIGIN_LABELS = ['helm.toolkit.fluxcd.io/name', 'helm.toolkit.fluxcd.io/namespace'];

/** One documented flux-local deviation, as a rewrite of a builtin object; true if it applied. */
interface Deviation {
  name: string;
  apply: (object: RenderedObject) => boolean;
}

function metadataOf(manifest: Manifest): Record<string, unknown> {
  return manifest['metadata'] as Record<string, unknown>;
}

/** Removes these entries (key and value must match) from labels or annotations. */
function dropEntries(
  manifest: Manifest,
  field: 'labels' | 'annotations',
  entries: Record<string, string>,
): boolean {
  const metadata = metadataOf(manifest);
  const map = metadata[field] as Record<string, unknown> | undefined;
  if (!map) return false;
  let changed = false;
  for (const [key, value] of Object.entries(entries)) {
    if (map[key] !== value) continue;
    delete map[key];
    changed = true;
  }
  if (Object.keys(map).length === 0) delete metadata[field];
  return changed;
}

function isReleaseObject(o: RenderedObject, name?: string): boolean {
  return o.producer.kind === 'HelmRelease' && (name === undefined || o.producer.name === name);
}

/** helm-controller's origin labels, which flux-local never adds. */
const originLabels: Deviation = {
  name: 'no helm.toolkit.fluxcd.io labels',
  apply: (o) =>
    isReleaseObject(o) &&
    dropEntries(o.manifest, 'labels', {
      [ORIGIN_LABELS[0]!]: o.producer.name,
      [ORIGIN_LABELS[1]!]: o.producer.namespace,
    }),
};

function setData(o: RenderedObject, name: string, key: string, from: string, to: string) {
  const data = o.manifest['data'] as Record<string, unknown> | undefined;
  if (objectMeta(o.manifest).name !== name || data?.[key] !== from) return false;
  data[key] = to;
  return true;
}

/**
 * Rewrites a copy of the builtin render by every deviation in turn (each must apply to
 * at least one object), then expects exactly flux-local's render, apart from the objects
 * in `only` that one engine alone renders.
 */
function expectSameExcept(
  fromBuiltin: RenderedCluster,
  fromFluxLocal: RenderedCluster,
  deviations: Deviation[],
  only?: { builtin: string[]; fluxLocal: string[] },
): void {
  const objects = fromBuiltin.objects.map((o) => ({ ...o, manifest: structuredClone(o.manifest) }));
  for (const deviation of deviations) {
    const applied = objects.filter((o) => deviation.apply(o)).length;
    expect(applied, `deviation '${deviation.name}' applies`).toBeGreaterThan(0);
  }
  expectSameObjects({ ...fromBuiltin, objects }, fromFluxLocal, only);
  for (const o of fromFluxLocal.objects.filter((x) => isReleaseObject(x))) {
    for (const label of ORIGIN_LABELS)
      expect(objectMeta(o.manifest).labels).not.toHaveProperty(label);
  }
}

function releaseFiles(cluster: RenderedCluster): string[] {
  return cluster.objects
    .filter((o) => isReleaseObject(o))
    .map((o) => `${o.producer.name} ${objectMeta(o.manifest).kind} ${o.file ?? '-'}`)
    .sort();
}

describe('flux-local output parsing', () => {
  it('reads the get ks table by column', () => {
    const table = [
      'NAMESPACE      NAME           PATH                    ',
      'flux-system    apps           tests/my apps/prod      ',
      'team-a         x              /tmp/src-0/deploy       ',
      '',
    ].join('\n');
    expect(parseKustomizationTable(table)).toEqual([
      { namespace: 'flux-system', name: 'apps', path: 'tests/my apps/prod' },
      { namespace: 'team-a', name: 'x', path: '/tmp/src-0/deploy' },
    ]);
    expect(parseKustomizationTable('no Kustomization objects found in cluster\n')).toEqual([]);
  });

  it('finds the Kustomizations an error names', () => {
    const ks = (namespace: string, name: string) => ({ kind: 'Kustomization', namespace, name });
    expect(
      namedKustomizations(
        "Kustomization 'flux-system/infra' path field 'x' is not a directory: /r/x",
      ),
    ).toEqual([ks('flux-system', 'infra')]);
    expect(
      namedKustomizations(
        "Command 'flux build ks bad --dry-run --kustomization-file /dev/stdin --path /r/b --namespace apps' failed",
      ),
    ).toEqual([ks('apps', 'bad')]);
    expect(
      namedKustomizations(
        "Detected multiple Fluxtomizations with the same name: ['a/x', 'a/x', 'b/y']. This",
      ),
    ).toEqual([ks('a', 'x'), ks('b', 'y')]);
    expect(namedKustomizations('Invalid object missing metadata.namespace')).toEqual([]);
  });
});

describe('FluxLocalEngine', () => {
  it('throws SetupError only when flux-local itself is missing', async () => {
    const empty = await tempDir();
    const bare = new ToolRunner({ toolsBinDir: empty, path: '', baseEnv: {} });
    const engine = new FluxLocalEngine({ runner: bare, settings: DEFAULT_RENDER_SETTINGS });
    const request: RenderRequest = { repoDir: ownFixtures, entry: '.', sources: [] };
    await expect(engine.render(request)).rejects.toBeInstanceOf(SetupError);
  });

  describe('deviations fixture (clusters/dev)', () => {
    const request: RenderRequest = {
      repoDir: join(ownFixtures, 'deviations'),
      entry: 'clusters/dev',
      sources: [],
    };
    let b: RenderedCluster;
    let f: RenderedCluster;
    beforeAll(async () => {
      [b, f] = await Promise.all([builtin.render(request), fluxLocal.render(request)]);
    });

    it('reports flux-local as the tool', () => {
      expect(f.tools['flux-local']).toBe('7.11.0');
      expect(f.errors).toEqual([]);
    });

    it('takes a Kustomization under --path from its file, not from its parent', () => {
      const apps = (c: RenderedCluster) => c.producers.find((p) => p.name === 'apps');
      expect(apps(b)?.path).toBe('apps/prod');
      expect(apps(b)?.definedIn).toEqual({
        parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
      });
      expect(apps(f)?.path).toBe('apps/base');
      expect(apps(f)?.definedIn).toEqual({ file: 'clusters/dev/apps.yaml', line: 2 });
      expect(data(find(b, 'ConfigMap', 'app-settings')[0])['variant']).toBe('prod');
      expect(data(find(f, 'ConfigMap', 'app-settings')[0])['variant']).toBe('base');
    });

    it('lets substituteFrom win over inline substitute', () => {
      expect(data(find(b, 'ConfigMap', 'app-settings')[0])['greeting']).toBe('inline');
      expect(data(find(f, 'ConfigMap', 'app-settings')[0])['greeting']).toBe('from-configmap');
    });

    it('substitutes placeholders for Secret values', () => {
      expect(data(find(b, 'ConfigMap', 'app-settings')[0])['token']).toBe('s3cr3t');
      expect(data(find(f, 'ConfigMap', 'app-settings')[0])['token']).toBe('..PLACEHOLDER_token..');
    });

    it('applies commonMetadata like Flux', () => {
      for (const c of [b, f]) {
        const meta = find(c, 'ConfigMap', 'app-settings')[0]?.['metadata'] as Record<
          string,
          unknown
        >;
        expect(meta['labels']).toMatchObject({ team: 'platform' });
        expect(meta['annotations']).toEqual({ 'fluxlens.dev/owner': 'platform' });
      }
    });

    it('agrees on everything else, Secrets included', () => {
      const settings = 'flux-system/apps v1 ConfigMap default app-settings';
      expectSameObjects(b, f, { builtin: [settings], fluxLocal: [settings] });
      expect(find(f, 'Secret', 'creds')).toHaveLength(1);
    });
  });

  describe('a broken Kustomization (clusters/broken)', () => {
    const request: RenderRequest = {
      repoDir: join(ownFixtures, 'deviations'),
      entry: 'clusters/broken',
      sources: [],
    };

    it('fails the whole flux-local run, reported on the producer it names', async () => {
      const f = await fluxLocal.render(request);
      expect(f.objects).toEqual([]);
      expect(f.errors).toHaveLength(1);
      const error = f.errors[0]!;
      expect(error.producer).toEqual({
        kind: 'Kustomization',
        namespace: 'flux-system',
        name: 'bad',
      });
      expect(error.file).toBe('clusters/broken/apps.yaml');
      expect(error.message).toContain('broken/bad/missing.yaml');
      expect(error.message).not.toContain(tmpdir());
      const byName = new Map(f.producers.map((p) => [p.name, p]));
      expect(byName.get('bad')?.error).toBe(error.message);
      expect(byName.get('good')?.skipped).toMatch(/flux-system\/bad/);
      expect(byName.get('flux-system')?.skipped).toMatch(/flux-system\/bad/);
    });

    it('where the builtin engine renders the rest', async () => {
      const b = await builtin.render(request);
      expect(b.errors.map((e) => e.producer.name)).toEqual(['bad']);
      expect(find(b, 'ConfigMap', 'good')).toHaveLength(1);
    });
  });

  it('reports an error it cannot attribute on the flux-local run', async () => {
    const f = await fluxLocal.render({
      repoDir: join(ownFixtures, 'deviations'),
      entry: 'clusters/no-namespace',
      sources: [],
    });
    expect(f.objects).toEqual([]);
    expect(f.errors).toHaveLength(1);
    expect(f.errors[0]?.producer).toEqual(FLUX_LOCAL_RUN);
    expect(f.errors[0]?.message).toContain('missing metadata.namespace');
    expect(f.producers.length).toBeGreaterThan(0);
    expect(f.producers.every((p) => p.skipped !== undefined)).toBe(true);
  });

  it('renders a git revision, not the work tree', async () => {
    const repo = await tempDir();
    await copyTree(join(ownFixtures, 'deviations'), repo, { mode: 'copy' });
    const git = (...args: string[]): void => {
      execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        stdio: 'ignore',
        env: { PATH: process.env['PATH'] ?? '', HOME: repo, GIT_CONFIG_NOSYSTEM: '1' },
      });
    };
    git('init', '--quiet');
    git('add', '-A');
    git('commit', '--quiet', '--no-verify', '--no-gpg-sign', '-m', 'fixture');
    await rm(join(repo, 'clusters', 'dev', 'vars.yaml'));
    const f = await fluxLocal.render({
      repoDir: repo,
      rev: 'HEAD',
      entry: 'clusters/dev',
      sources: [],
    });
    expect(f.errors).toEqual([]);
    expect(find(f, 'ConfigMap', 'vars')).toHaveLength(1);
    expect(existsSync(join(repo, 'clusters', 'dev', 'vars.yaml'))).toBe(false);
  });
});

describe('FluxLocalEngine HelmReleases (helm fixture)', () => {
  const repoDir = join(ownFixtures, 'helm');
  const capabilities = {
    kubeVersion: 'v1.31.0',
    apiVersions: ['example.com/v1/Widget', 'example.com/v1alpha1'],
  };
  const engines = helmEngines(capabilities);
  let b: RenderedCluster;
  let f: RenderedCluster;
  beforeAll(async () => {
    const request: RenderRequest = { repoDir, entry: 'clusters/dev', sources: [] };
    [b, f] = await Promise.all([
      engines.builtin.render(request),
      engines.fluxLocal.render(request),
    ]);
  });

  const releases = (c: RenderedCluster) => c.producers.filter((p) => p.kind === 'HelmRelease');
  const releaseObjects = (c: RenderedCluster, name: string) =>
    c.objects.filter((o) => isReleaseObject(o, name)).map((o) => objectMeta(o.manifest).name);

  it('makes each HelmRelease a producer, as the builtin engine does', () => {
    expect(f.producers.map(producerFacts)).toEqual(b.producers.map(producerFacts));
    expect(releases(f).map((p) => p.name)).toEqual(['api', 'missing', 'remote', 'web']);
    expect(releases(f).map((p) => p.definedIn)).toEqual(releases(b).map((p) => p.definedIn));
    const web = releases(f).find((p) => p.name === 'web');
    expect(web).toMatchObject({
      path: 'charts/demo',
      source: 'GitRepository/flux-system/flux-system@1.2.3',
      definedIn: { parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' } },
    });
    expect(f.tools['helm']).toBe(b.tools['helm']);
  });

  it('attributes objects by run, also for two releases of one chart', () => {
    expect(releaseObjects(f, 'web').sort()).toEqual([
      'web',
      'web-config',
      'web-reader',
      'web-upgraded',
    ]);
    expect(releaseObjects(f, 'api').sort()).toEqual([
      'api',
      'api-config',
      'api-reader',
      'api-upgraded',
    ]);
    // Chart objects carry their template, as in the builtin engine.
    const withoutHooks = releaseFiles(f).filter((l) => !l.endsWith('upgrade-hook.yaml'));
    expect(withoutHooks).toEqual(releaseFiles(b));
    expect(withoutHooks).toContain('web ConfigMap charts/demo/templates/configmap.yaml');
  });

  it('keeps a failing HelmRelease to itself; offline, remote charts fail unfetched', () => {
    const failed = (c: RenderedCluster) => c.errors.map((e) => producerKey(e.producer)).sort();
    expect(failed(f)).toEqual(['HelmRelease/apps/missing', 'HelmRelease/apps/remote']);
    expect(failed(b)).toEqual(failed(f));
    const message = (name: string) => f.errors.find((e) => e.producer.name === name)?.message;
    expect(message('missing')).toContain('path "./charts/missing" not found');
    expect(message('remote')).toMatch(/HelmRepository\/apps\/charts: .* offline$/);
    expect(releaseObjects(f, 'missing')).toEqual([]);
    expect(releaseObjects(f, 'remote')).toEqual([]);
  });

  it('passes kubeVersion and apiVersions to helm', () => {
    for (const c of [b, f]) {
      const config = c.objects.find(
        (o) => isReleaseObject(o, 'api') && objectMeta(o.manifest).kind === 'ConfigMap',
      );
      expect(data(config?.manifest)).toMatchObject({ kubeVersion: 'v1.31.0', hasWidget: 'true' });
    }
  });

  it('renders the same objects except the documented Helm deviations', () => {
    const webConfig = 'web-prod-web-config';
    const renamed = (release: string, from: string, to: string): Deviation => ({
      name: `release name ${to}, not ${from}`,
      apply: (o) => {
        const metadata = metadataOf(o.manifest);
        const name = metadata['name'];
        if (!isReleaseObject(o, release) || typeof name !== 'string' || !name.startsWith(from))
          return false;
        metadata['name'] = `${to}${name.slice(from.length)}`;
        return true;
      },
    });
    expectSameExcept(
      b,
      f,
      [
        originLabels,
        {
          name: 'Secret values at a targetPath become placeholders',
          apply: (o) => setData(o, webConfig, 'token', 's3cr3t', '..PLACEHOLDER_web-auth..'),
        },
        {
          name: 'targetPath values stay strings',
          apply: (o) => setData(o, webConfig, 'replicasKind', 'float64', 'string'),
        },
        {
          name: 'valuesFiles are ignored',
          apply: (o) => setData(o, webConfig, 'tier', 'prod', 'default'),
        },
        {
          name: 'no commonMetadata',
          apply: (o) =>
            isReleaseObject(o, 'web') &&
            [
              dropEntries(o.manifest, 'labels', { team: 'web' }),
              dropEntries(o.manifest, 'annotations', { 'fluxlens.dev/owner': 'web-team' }),
            ].includes(true),
        },
        {
          name: 'no postRenderers',
          apply: (o) =>
            isReleaseObject(o, 'web') && dropEntries(o.manifest, 'labels', { patched: 'true' }),
        },
        {
          name: 'namespace-less objects stay without a namespace',
          apply: (o) => {
            if (!isReleaseObject(o) || objectMeta(o.manifest).kind !== 'ServiceAccount')
              return false;
            const metadata = metadataOf(o.manifest);
            expect(metadata['namespace']).toBe(o.producer.name === 'web' ? 'web-prod' : 'apps');
            delete metadata['namespace'];
            return true;
          },
        },
        renamed('web', 'web-prod-web', 'web'),
        renamed('api', 'api-v2', 'api'),
      ],
      {
        builtin: [],
        // post-upgrade hooks: helm template renders every hook, an install creates none.
        fluxLocal: [
          'apps/api v1 ConfigMap apps api-upgraded',
          'apps/web v1 ConfigMap web-prod web-upgraded',
        ],
      },
    );
  });

  it('skips HelmReleases that no Kustomization applies', async () => {
    const request: RenderRequest = { repoDir, entry: 'apps', sources: [] };
    const [bApps, fApps] = await Promise.all([
      engines.builtin.render(request),
      engines.fluxLocal.render(request),
    ]);
    expect(releaseObjects(bApps, 'web')).toHaveLength(3);
    expect(fApps.objects).toEqual([]);
    expect(releases(fApps).map((p) => [p.name, p.skipped])).toEqual(
      ['api', 'missing', 'remote', 'web'].map((name) => [
        name,
        'flux-local inflates only HelmReleases that a Kustomization it builds applies',
      ]),
    );
    expect(releases(fApps).find((p) => p.name === 'web')?.definedIn).toEqual({
      file: 'apps/web.yaml',
      line: 5,
    });
  });
});

if (!haveShared) {
  console.log(`flux-local engine comparison skipped: ${sharedFixtures} is absent`);
}

describe.skipIf(!haveShared)('FluxLocalEngine vs BuiltinEngine on flux-local test clusters', () => {
  let repo: string;
  beforeAll(async () => {
    repo = await sharedRepo();
  });

  describe('cluster', () => {
    let b: RenderedCluster;
    let f: RenderedCluster;
    beforeAll(async () => {
      const request: RenderRequest = {
        repoDir: repo,
        entry: 'tests/testdata/cluster',
        sources: [],
      };
      [b, f] = await Promise.all([builtin.render(request), fluxLocal.render(request)]);
    });

    it('finds the same producers', () => {
      expect(f.errors).toEqual([]);
      expect(b.errors).toEqual([]);
      expect(f.producers.map(producerFacts)).toEqual(b.producers.map(producerFacts));
      expect(f.producers.map((p) => p.name)).toEqual([
        'apps',
        'flux-system',
        'infra-configs',
        'infra-controllers',
      ]);
    });

    it('renders the same objects except those named from Secret values', () => {
      const apps = 'flux-system/apps cert-manager.io/v1 Certificate ';
      expectSameObjects(b, f, {
        builtin: [`${apps} SECRET-staging`, `${apps} SECRET-staging`],
        fluxLocal: [
          `${apps} -.PLACEHOLDER_SECRET_DOMAIN3..-staging`,
          `${apps} -.PLACEHOLDER_SECRET_DOMAIN4..-staging`,
        ],
      });
      expect(f.objects).toHaveLength(22);
      expect(b.objects).toHaveLength(22);
    });

    it('builds those names from placeholders in flux-local, from the Secret in builtin', () => {
      for (const key of ['SECRET_DOMAIN3', 'SECRET_DOMAIN4']) {
        const [cert] = find(f, 'Certificate', `-.PLACEHOLDER_${key}..-staging`);
        expect(spec(cert)['commonName']).toBe(`..PLACEHOLDER_${key}..`);
      }
      const fromSecret = find(b, 'Certificate', 'SECRET-staging');
      expect(fromSecret.map((c) => spec(c)['commonName'])).toEqual(['SECRET', 'SECRET']);
    });

    it('keeps Secrets and drops the kustomize index annotations', () => {
      expect(find(f, 'Secret', 'cluster-secrets')).toHaveLength(1);
      expect(JSON.stringify(f.objects)).not.toContain('config.kubernetes.io/index');
    });

    it('takes file-defined children from their files', () => {
      const apps = f.producers.find((p) => p.name === 'apps');
      expect(apps?.definedIn).toEqual({
        file: 'tests/testdata/cluster/clusters/prod/apps.yaml',
        line: 3,
      });
      expect(b.producers.find((p) => p.name === 'apps')?.definedIn).toEqual({
        parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
      });
    });
  });

  describe('cluster6', () => {
    it('renders exactly what the builtin engine renders', async () => {
      const request: RenderRequest = {
        repoDir: repo,
        entry: 'tests/testdata/cluster6',
        sources: [],
      };
      const [b, f] = await Promise.all([builtin.render(request), fluxLocal.render(request)]);
      expect(f.errors).toEqual([]);
      expect(f.producers.map(producerFacts)).toEqual(b.producers.map(producerFacts));
      expectSameObjects(b, f);
      expect(f.objects).toHaveLength(5);
    });
  });

  describe('cluster3 (OCIRepository sources)', () => {
    const entry = 'tests/testdata/cluster3';

    it('maps --source NAME=DIR to flux-local --sources', async () => {
      const sources = [{ key: 'cluster', dir: join(repo, entry) }];
      const request: RenderRequest = { repoDir: repo, entry, sources };
      const [b, f] = await Promise.all([builtin.render(request), fluxLocal.render(request)]);
      expect(f.errors).toEqual([]);
      expect(f.producers.map(producerFacts)).toEqual(b.producers.map(producerFacts));
      expectSameObjects(b, f);
      expect(f.objects.filter((o) => o.producer.name === 'tenants')).toHaveLength(1);
    });

    it('skips Kustomizations of an unmapped OCIRepository, as the builtin engine does', async () => {
      const request: RenderRequest = { repoDir: repo, entry, sources: [] };
      const [b, f] = await Promise.all([builtin.render(request), fluxLocal.render(request)]);
      const skipped = (c: RenderedCluster) =>
        c.producers.filter((p) => p.skipped !== undefined).map((p) => p.name);
      expect(skipped(f)).toEqual(['namespaces', 'tenants']);
      expect(skipped(b)).toEqual(['namespaces', 'tenants']);
      expectSameObjects(b, f);
      expect(f.errors.map((e) => producerKey(e.producer))).not.toContain(
        producerKey(FLUX_LOCAL_RUN),
      );
    });
  });

  describe('cluster12 (HelmRelease of a local chart with crds/)', () => {
    const entry = 'tests/testdata/cluster12/cluster';
    const crd =
      'default/flag-fixture apiextensions.k8s.io/v1 CustomResourceDefinition  flagtests.example.com';
    let b: RenderedCluster;
    let f: RenderedCluster;
    beforeAll(async () => {
      const engines = helmEngines();
      const request: RenderRequest = { repoDir: repo, entry, sources: [] };
      [b, f] = await Promise.all([
        engines.builtin.render(request),
        engines.fluxLocal.render(request),
      ]);
    });

    it('finds the same producers, the HelmRelease defined by its Kustomization', () => {
      expect(f.errors).toEqual([]);
      expect(b.errors).toEqual([]);
      expect(f.producers.map(producerFacts)).toEqual(b.producers.map(producerFacts));
      const release = (c: RenderedCluster) => c.producers.find((p) => p.kind === 'HelmRelease');
      // flux-local renders whole clusters: it keys no producer (Producer.inputKey).
      expect(release(f)?.inputKey).toBeUndefined();
      expect(release(b)?.inputKey).toMatch(/^[0-9a-f]{64}$/);
      expect(release(f)).toEqual({ ...release(b), inputKey: undefined });
      expect(release(f)).toMatchObject({
        name: 'flag-fixture',
        source: 'GitRepository/flux-system/flux-system@0.1.0',
      });
    });

    it('renders the same objects but for the origin labels and the crds/ CRD', () => {
      expectSameExcept(b, f, [originLabels], { builtin: [crd], fluxLocal: [] });
      expect(f.objects.filter((o) => isReleaseObject(o))).toHaveLength(3);
      expect(releaseFiles(f)).toEqual(
        releaseFiles(b).filter((l) => !l.startsWith('flag-fixture CustomResourceDefinition')),
      );
    });

    it('ignores isUpgrade; skipCrds leaves crds/ out in both', async () => {
      const engines = helmEngines({ isUpgrade: true, skipCrds: true });
      const request: RenderRequest = { repoDir: repo, entry, sources: [] };
      const [bUp, fUp] = await Promise.all([
        engines.builtin.render(request),
        engines.fluxLocal.render(request),
      ]);
      expectSameExcept(bUp, fUp, [
        originLabels,
        {
          name: 'renders an install, not an upgrade',
          apply: (o) => setData(o, 'flag-fixture-mode', 'lifecycle', 'upgrade', 'install'),
        },
      ]);
      expect(JSON.stringify(fUp.objects)).not.toContain('config.kubernetes.io/index');
    });
  });
});
