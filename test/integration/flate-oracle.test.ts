/**
 * The fixture repositories under test/fixtures/repos, each a small Flux repository that
 * exercises a group of rules. The builtin engine renders every one of them and the rules'
 * effects are asserted here, flate or not. Where flate (another Flux renderer, used only
 * as an oracle: its binary is run, its code is not used) is installed, it renders them
 * too and every object must match, producer by producer, except the named divergences
 * below: for each one, Flux's source says who is right and the test checks that fluxlens
 * does what Flux does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RENDER_SETTINGS } from '../../src/render/index.js';
import {
  apiGroup,
  objectMeta,
  producerKey,
  type Manifest,
  type Producer,
  type RenderedCluster,
  type RenderedObject,
} from '../../src/model/render.js';
import { flateInstalled, renderWithFlate, type FlateRender } from '../support/flate.js';
import { projectRoot } from '../support/paths.js';
import { builtinEngine } from '../support/render.js';

interface Fixture {
  /** Folder under test/fixtures/repos. */
  name: string;
  /** The cluster folder both tools start from (it holds flux-system). */
  cluster: string;
}

const FIXTURES: Fixture[] = [
  { name: 'overlay-spec', cluster: 'clusters/staging' },
  { name: 'post-build', cluster: 'clusters/prod' },
  { name: 'nested-producers', cluster: 'clusters/home' },
  { name: 'helm-local-chart', cluster: 'clusters/lab' },
  { name: 'partial-failure', cluster: 'clusters/edge' },
];

const fixtureDir = (name: string): string => join(projectRoot, 'test', 'fixtures', 'repos', name);

const chartCache = mkdtempSync(join(tmpdir(), 'fluxlens-oracle-charts-'));
afterAll(() => rmSync(chartCache, { recursive: true, force: true }));

/** HelmReleases inflated, offline: the fixtures' charts are folders in the repository. */
const engine = builtinEngine({
  helm: {
    ...DEFAULT_RENDER_SETTINGS.helm,
    enabled: true,
    offline: true,
    chartCacheDir: chartCache,
  },
});

const renders = new Map<string, Promise<RenderedCluster>>();
function render(name: string): Promise<RenderedCluster> {
  const fixture = FIXTURES.find((f) => f.name === name);
  if (!fixture) throw new Error(`no fixture ${name}`);
  let r = renders.get(name);
  if (!r) {
    r = engine.render({ repoDir: fixtureDir(name), entry: fixture.cluster, sources: [] });
    renders.set(name, r);
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// Reading a rendered cluster
// ---------------------------------------------------------------------------------------

const KS_NAME = 'kustomize.toolkit.fluxcd.io/name';
const KS_NAMESPACE = 'kustomize.toolkit.fluxcd.io/namespace';
const HR_NAME = 'helm.toolkit.fluxcd.io/name';
const HR_NAMESPACE = 'helm.toolkit.fluxcd.io/namespace';

function producer(cluster: RenderedCluster, kind: Producer['kind'], name: string): Producer {
  const found = cluster.producers.find((p) => p.kind === kind && p.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${cluster.producers.map(producerKey)}`);
  return found;
}

function objectsOf(cluster: RenderedCluster, producerName: string): RenderedObject[] {
  return cluster.objects.filter((o) => o.producer.name === producerName);
}

/** The one object of this kind and name (and namespace, when given) the producer applies. */
function object(
  cluster: RenderedCluster,
  producerName: string,
  kind: string,
  name: string,
  namespace?: string,
): Manifest {
  const found = objectsOf(cluster, producerName).filter((o) => {
    const m = objectMeta(o.manifest);
    return (
      m.kind === kind && m.name === name && (namespace === undefined || m.namespace === namespace)
    );
  });
  if (found.length !== 1) {
    const have = objectsOf(cluster, producerName).map((o) => idOf(o.manifest));
    throw new Error(
      `${producerName}: ${found.length} ${kind} ${name}; it applies ${have.join(', ')}`,
    );
  }
  return found[0]!.manifest;
}

function idOf(manifest: Manifest): string {
  const m = objectMeta(manifest);
  return `${apiGroup(m.apiVersion)}/${m.kind}/${m.namespace ?? ''}/${m.name}`;
}

function names(cluster: RenderedCluster, producerName: string, kind: string): string[] {
  return objectsOf(cluster, producerName)
    .map((o) => objectMeta(o.manifest))
    .filter((m) => m.kind === kind)
    .map((m) => m.name)
    .sort();
}

type Path = readonly (string | number)[];

function at(value: unknown, path: Path): unknown {
  let current = value;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[step];
  }
  return current;
}

const data = (m: Manifest): unknown => m['data'];
const spec = (m: Manifest): Record<string, unknown> => (m['spec'] ?? {}) as Record<string, unknown>;
const podSpec = (m: Manifest): unknown => at(m, ['spec', 'template', 'spec']);
const container = (m: Manifest, i = 0): Record<string, unknown> =>
  (at(m, ['spec', 'template', 'spec', 'containers', i]) ?? {}) as Record<string, unknown>;

// ---------------------------------------------------------------------------------------
// The rules each fixture exercises, asserted on the builtin engine's rendering
// ---------------------------------------------------------------------------------------

describe('fixture repositories, rendered by the builtin engine', () => {
  it('overlay-spec: a generated kustomization, a nested one, and the spec merged into a kustomization.yaml', async () => {
    const cluster = await render('overlay-spec');
    expect(cluster.errors).toEqual([]);
    expect(cluster.producers.map(producerKey)).toEqual([
      'Kustomization/flux-system/flux-system',
      'Kustomization/flux-system/infra',
      'Kustomization/flux-system/podinfo',
    ]);
    expect(producer(cluster, 'Kustomization', 'podinfo').dependsOn).toEqual([
      { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' },
    ]);

    // ./infra has no kustomization.yaml: every YAML file, recursively (rbac/), except the
    // folder with its own kustomization (ingress/), which is one resource built its way.
    // README.md is not YAML; cloudbuild.yaml is a default exclusion of the artifact.
    expect(
      objectsOf(cluster, 'infra')
        .map((o) => idOf(o.manifest))
        .sort(),
    ).toEqual([
      '/ConfigMap/ingress/ingress-controller',
      '/Namespace//ingress',
      '/Namespace//podinfo',
      '/ServiceAccount/ingress/ingress-controller',
      'rbac.authorization.k8s.io/ClusterRole//podinfo-viewer',
    ]);
    expect(
      objectMeta(object(cluster, 'infra', 'ServiceAccount', 'ingress-controller')).labels,
    ).toEqual({
      'app.kubernetes.io/component': 'ingress',
      [KS_NAME]: 'infra',
      [KS_NAMESPACE]: 'flux-system',
    });

    // ./apps/podinfo: targetNamespace, namePrefix, the spec's patches after the file's,
    // its images merged into the file's entry by name, a component, commonMetadata.
    const deploy = object(cluster, 'podinfo', 'Deployment', 'stg-podinfo', 'podinfo');
    expect(spec(deploy)['replicas']).toBe(3);
    expect(container(deploy)['image']).toBe('registry.example.com/podinfo:6.7.1');
    expect(at(podSpec(deploy), ['initContainers', 0, 'image'])).toBe(
      'registry.example.com/mirror/busybox:1.37',
    );
    expect(container(deploy)['env']).toEqual([
      { name: 'PODINFO_PORT', value: '9898' },
      { name: 'FROM_KUSTOMIZATION_FILE', value: 'yes' },
    ]);
    expect(at(deploy, ['spec', 'template', 'metadata', 'annotations'])).toEqual({
      'tracing.example.com/enabled': 'true',
    });
    const generated = names(cluster, 'podinfo', 'ConfigMap').find((n) =>
      n.startsWith('stg-podinfo-config-'),
    );
    expect(generated).toMatch(/^stg-podinfo-config-[a-z0-9]{10}$/);
    expect(container(deploy)['envFrom']).toEqual([{ configMapRef: { name: generated } }]);
    expect(data(object(cluster, 'podinfo', 'ConfigMap', 'stg-otel-config', 'podinfo'))).toEqual({
      endpoint: 'otel-collector.tracing:4317',
    });
    const service = objectMeta(object(cluster, 'podinfo', 'Service', 'stg-podinfo', 'podinfo'));
    expect(service.annotations).toEqual({
      'example.com/exposed': 'true',
      'example.com/owner': 'team-a',
    });
    for (const o of objectsOf(cluster, 'podinfo')) {
      const meta = objectMeta(o.manifest);
      expect(meta.namespace).toBe('podinfo');
      expect(meta.name).toMatch(/^stg-/);
      expect(meta.labels).toMatchObject({
        'app.kubernetes.io/part-of': 'podinfo',
        env: 'staging',
        [KS_NAME]: 'podinfo',
        [KS_NAMESPACE]: 'flux-system',
      });
      expect(meta.annotations['example.com/owner']).toBe('team-a');
    }
  });

  it('post-build: substitute and substituteFrom (ConfigMap, Secret stringData and data), defaults, the opt-out', async () => {
    const cluster = await render('post-build');
    expect(cluster.errors).toEqual([]);
    const settings = object(cluster, 'web', 'ConfigMap', 'web-settings', 'web');
    expect(data(settings)).toEqual({
      env: 'production',
      host: 'app.example.com',
      // Newlines are removed from every variable's value.
      banner: 'line oneline two',
      // base64 data, and stringData merged over data.
      token: 'tok-123',
      'signing-key': 'new-key',
      region: 'eu-west-1',
      zone: 'zone-a',
      escaped: '${HOME}',
    });
    // Inline substitute wins over substituteFrom.
    expect(objectMeta(settings).labels['tier']).toBe('frontend');
    // The opt-out annotation: not substituted at all.
    expect(data(object(cluster, 'web', 'ConfigMap', 'web-script', 'web'))).toEqual({
      'run.sh': '#!/bin/sh\necho "${HOME} ${CLUSTER_DOMAIN} ${ARGS[@]}"\n',
    });
    expect(object(cluster, 'web', 'Secret', 'web-credentials', 'web')['stringData']).toEqual({
      url: 'postgres://web:s3cr3t-pw@db.example.com:5432/web',
    });
    // Later sources win (cluster-secrets' REPLICAS over cluster-settings'); the substituted
    // text is read back as YAML 1.1, so numbers and yes/no are typed.
    const deploy = object(cluster, 'web', 'Deployment', 'web', 'web');
    expect(spec(deploy)['replicas']).toBe(4);
    expect(at(podSpec(deploy), ['automountServiceAccountToken'])).toBe(true);
    expect(container(deploy)['env']).toEqual([{ name: 'DOMAIN', value: 'example.com' }]);
    // A Kustomization without postBuild applies ${...} as written.
    expect(data(object(cluster, 'raw', 'ConfigMap', 'raw', 'default'))).toEqual({
      domain: '${CLUSTER_DOMAIN}',
      defaulted: '${REGION:=eu-west-1}',
    });
  });

  it("nested-producers: children defined by their parent's output, patched by it, in dependency order", async () => {
    const cluster = await render('nested-producers');
    // clusters/home/drafts is left out by .sourceignore: its bad YAML breaks nothing.
    expect(cluster.errors).toEqual([]);
    const apps = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
    for (const child of ['database', 'web', 'web-extras']) {
      expect(producer(cluster, 'Kustomization', child).definedIn).toEqual({ parent: apps });
    }
    expect(producer(cluster, 'Kustomization', 'web').dependsOn).toEqual([
      { kind: 'Kustomization', namespace: 'flux-system', name: 'database' },
    ]);
    // The parent's patches: substituteFrom only on the labelled children, commonMetadata on all.
    const child = (name: string): Record<string, unknown> =>
      spec(object(cluster, 'apps', 'Kustomization', name, 'flux-system'));
    for (const name of ['database', 'web']) {
      expect(child(name)['postBuild']).toEqual({
        substituteFrom: [{ kind: 'ConfigMap', name: 'home-settings' }],
      });
    }
    expect(child('web-extras')['postBuild']).toBeUndefined();
    for (const name of ['database', 'web', 'web-extras']) {
      expect(child(name)['commonMetadata']).toEqual({ labels: { 'home.arpa/managed-by': 'apps' } });
      for (const o of objectsOf(cluster, name)) {
        expect(objectMeta(o.manifest).labels['home.arpa/managed-by']).toBe('apps');
        expect(objectMeta(o.manifest).namespace).toBe('home');
      }
    }
    // ...and those patches take effect when the children render.
    const postgres = object(cluster, 'database', 'StatefulSet', 'postgres', 'home');
    expect(container(postgres)['env']).toEqual([{ name: 'TZ', value: 'Europe/Paris' }]);
    const ingress = object(cluster, 'web', 'Ingress', 'web', 'home');
    expect(at(ingress, ['spec', 'rules', 0, 'host'])).toBe('web.home.arpa');
    expect(data(object(cluster, 'web-extras', 'ConfigMap', 'web-links', 'home'))).toEqual({
      home: 'https://web.${ZONE}/',
    });
    // apps/web/.sourceignore leaves the work-in-progress file out of the generated kustomization.
    expect(names(cluster, 'web', 'ConfigMap')).toEqual([]);
    expect(
      objectsOf(cluster, 'web')
        .map((o) => idOf(o.manifest))
        .sort(),
    ).toEqual(['apps/Deployment/home/web', 'networking.k8s.io/Ingress/home/web']);
  });

  it('helm-local-chart: a chart folder from the GitRepository, valuesFrom with targetPath, post-renderers, commonMetadata', async () => {
    const cluster = await render('helm-local-chart');
    expect(cluster.errors).toEqual([]);
    expect(producer(cluster, 'HelmRelease', 'echo')).toMatchObject({
      namespace: 'echo',
      source: 'GitRepository/flux-system/flux-system@0.3.1',
    });
    // The HelmRelease objects themselves belong to the Kustomization that applies them.
    expect(names(cluster, 'echo', 'HelmRelease')).toEqual(['echo', 'echo-lab']);

    const release = (name: string): RenderedObject[] =>
      cluster.objects.filter((o) => o.producer.kind === 'HelmRelease' && o.producer.name === name);
    expect(
      release('echo')
        .map((o) => idOf(o.manifest))
        .sort(),
    ).toEqual([
      '/Secret/echo/echo-auth',
      '/Service/echo/echo',
      'apiextensions.k8s.io/CustomResourceDefinition//echoes.lab.example.com',
      'apps/Deployment/echo/echo',
    ]);
    const deploy = release('echo').find((o) => o.manifest['kind'] === 'Deployment')!.manifest;
    // Values: chart defaults < echo-values < inline values; the targetPath image.tag writes
    // into the map inline values supplied; podAnnotations.team is new.
    expect(spec(deploy)['replicas']).toBe(1);
    expect(container(deploy)).toMatchObject({
      image: 'registry.example.com/echo:1.27',
      ports: [{ containerPort: 8080 }],
      env: [{ name: 'GREETING', value: 'hello from a ConfigMap' }],
    });
    expect(at(deploy, ['spec', 'template', 'metadata', 'annotations'])).toEqual({
      team: 'platform',
    });
    // A targetPath value from a Secret's stringData.
    const auth = release('echo').find((o) => o.manifest['kind'] === 'Secret')!.manifest;
    expect(auth['stringData']).toEqual({ password: 'hunter2' });
    // The post-renderer's patch and image, then commonMetadata and the origin labels.
    expect(at(podSpec(deploy), ['priorityClassName'])).toBe('lab-critical');
    expect(at(podSpec(deploy), ['initContainers', 0, 'image'])).toBe('busybox:1.37');
    for (const o of release('echo')) {
      expect(objectMeta(o.manifest).labels).toMatchObject({
        [HR_NAME]: 'echo',
        [HR_NAMESPACE]: 'echo',
        ...(o.manifest['kind'] === 'CustomResourceDefinition'
          ? {}
          : { 'app.kubernetes.io/part-of': 'lab' }),
      });
    }

    // echo-lab: releaseName and targetNamespace, valuesFiles read from the source root,
    // CRDs skipped on install and upgrade.
    expect(
      release('echo-lab')
        .map((o) => idOf(o.manifest))
        .sort(),
    ).toEqual([
      '/ConfigMap/lab/lab-echo-metrics',
      '/Service/lab/lab-echo',
      'apps/Deployment/lab/lab-echo',
    ]);
    const metrics = release('echo-lab').find((o) => o.manifest['kind'] === 'ConfigMap')!.manifest;
    expect(data(metrics)).toEqual({ 'release-namespace': 'lab', revision: '1' });
    const labDeploy = release('echo-lab').find((o) => o.manifest['kind'] === 'Deployment')!;
    expect(container(labDeploy.manifest)).toMatchObject({
      image: 'nginx:1.25',
      env: [{ name: 'GREETING', value: 'hello lab' }],
    });
    expect(labDeploy.file).toBe('charts/echo/templates/deployment.yaml');
  });

  /**
   * With spec.chart.spec.valuesFiles, source-controller repackages the chart with the HelmChart's generation as SemVer build
   * metadata (helmchart_controller.go: `opts.VersionMetadata += strconv.FormatInt(obj.Generation, 10)`;
   * builder_local.go: `loadedChart.Metadata.Version = result.Version`), so templates see
   * .Chart.Version 0.3.1+1 on a new HelmChart (generation 1).
   */
  it('helm-local-chart: valuesFiles give .Chart.Version the HelmChart generation as build metadata', async () => {
    const cluster = await render('helm-local-chart');
    const labDeploy = cluster.objects.find(
      (o) => o.producer.name === 'echo-lab' && o.manifest['kind'] === 'Deployment',
    );
    expect(objectMeta(labDeploy!.manifest).labels['helm.sh/chart']).toBe('echo-0.3.1_1');
  });

  it('partial-failure: a Kustomization with a missing path fails alone', async () => {
    const cluster = await render('partial-failure');
    expect(cluster.errors).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'broken' },
        file: 'clusters/edge/apps.yaml',
        message: "path 'apps/not-there' not found",
      },
    ]);
    expect(producer(cluster, 'Kustomization', 'broken').error).toBe(
      "path 'apps/not-there' not found",
    );
    expect(objectsOf(cluster, 'broken')).toEqual([]);
    expect(data(object(cluster, 'good', 'ConfigMap', 'good', 'default'))).toEqual({
      state: 'rendered',
    });
    expect(data(object(cluster, 'sibling', 'ConfigMap', 'sibling-settings', 'sibling'))).toEqual({
      state: 'rendered',
    });
    expect(names(cluster, 'flux-system', 'Kustomization')).toEqual([
      'after-broken',
      'broken',
      'flux-system',
      'good',
      'sibling',
    ]);
  });
});

// ---------------------------------------------------------------------------------------
// flate as an oracle
// ---------------------------------------------------------------------------------------

/** Annotations a tool adds for its own bookkeeping, not for the cluster. */
const BOOKKEEPING_ANNOTATIONS = ['config.kubernetes.io/origin', 'config.kubernetes.io/index'];
const BOOKKEEPING_PREFIX = 'internal.config.kubernetes.io/';

function normalize(manifest: Manifest): Manifest {
  const copy = structuredClone(manifest);
  const metadata = (copy['metadata'] ?? {}) as Record<string, unknown>;
  const annotations = metadata['annotations'] as Record<string, unknown> | undefined;
  if (annotations) {
    for (const key of Object.keys(annotations)) {
      if (BOOKKEEPING_ANNOTATIONS.includes(key) || key.startsWith(BOOKKEEPING_PREFIX))
        delete annotations[key];
    }
    if (Object.keys(annotations).length === 0) delete metadata['annotations'];
  }
  return copy;
}

/** flate names no producer in its output; the owner labels Flux sets do. */
function flateProducer(manifest: Manifest): string {
  const labels = objectMeta(manifest).labels;
  if (labels[HR_NAME] !== undefined)
    return `HelmRelease/${labels[HR_NAMESPACE] ?? ''}/${labels[HR_NAME]}`;
  if (labels[KS_NAME] !== undefined)
    return `Kustomization/${labels[KS_NAMESPACE] ?? ''}/${labels[KS_NAME]}`;
  return '(no owner labels)';
}

interface Difference {
  /** `<producer> <group>/<kind>/<namespace>/<name>`. */
  key: string;
  producer: string;
  ours: Manifest | undefined;
  flate: Manifest | undefined;
}

function indexOurs(cluster: RenderedCluster): Map<string, Manifest> {
  return new Map(
    cluster.objects.map((o) => [
      `${producerKey(o.producer)} ${idOf(o.manifest)}`,
      normalize(o.manifest),
    ]),
  );
}

function indexFlate(flate: FlateRender): Map<string, Manifest> {
  return new Map(flate.manifests.map((m) => [`${flateProducer(m)} ${idOf(m)}`, normalize(m)]));
}

function differences(ours: Map<string, Manifest>, flate: Map<string, Manifest>): Difference[] {
  const keys = [...new Set([...ours.keys(), ...flate.keys()])].sort();
  return keys
    .filter((key) => !isDeepStrictEqual(ours.get(key), flate.get(key)))
    .map((key) => ({
      key,
      producer: key.slice(0, key.indexOf(' ')),
      ours: ours.get(key),
      flate: flate.get(key),
    }));
}

/** The producers flate reports failed on stderr (`✗  Kind  namespace/name  message`). */
function flateFailures(flate: FlateRender): string[] {
  const failed = new Set<string>();
  for (const line of flate.stderr.split('\n')) {
    const m = /^\s*✗\s+(Kustomization|HelmRelease)\s+([^/\s]+)\/(\S+)\s/.exec(line);
    if (m) failed.add(`${m[1]}/${m[2]}/${m[3]}`);
  }
  return [...failed].sort();
}

/** Both objects exist and differ at exactly one place, where each holds the value given. */
function differsOnlyAt(
  d: Difference,
  path: Path,
  values: { ours: unknown; flate: unknown },
): boolean {
  if (d.ours === undefined || d.flate === undefined) return false;
  if (!isDeepStrictEqual(at(d.ours, path), values.ours)) return false;
  if (!isDeepStrictEqual(at(d.flate, path), values.flate)) return false;
  const blank = (m: Manifest): Manifest => {
    const copy = structuredClone(m);
    const parent = at(copy, path.slice(0, -1)) as Record<string | number, unknown>;
    parent[path.at(-1)!] = null;
    return copy;
  };
  return isDeepStrictEqual(blank(d.ours), blank(d.flate));
}

interface Divergence {
  name: string;
  /** The fixture it must appear in, so the list cannot go stale. */
  fixture: string;
  explains(d: Difference): boolean;
  /** Producers that fail in exactly one of the two tools because of it. */
  failures?: string[];
  /** Asserts the Flux behaviour on our side. */
  checkFlux(cluster: RenderedCluster): void;
}

const PODINFO_DEPLOYMENT = 'Kustomization/flux-system/podinfo apps/Deployment/podinfo/stg-podinfo';
const WEB_SETTINGS = 'Kustomization/flux-system/web /ConfigMap/web/web-settings';
const WEB_DEPLOYMENT = 'Kustomization/flux-system/web apps/Deployment/web/web';

const DIVERGENCES: Divergence[] = [
  /**
   * apps/podinfo/kustomization.yaml sets the podinfo image's newName and newTag; the
   * Kustomization's spec.images entry of the same name sets only newTag. Flux merges the
   * entry field by field, keeping the file's newName: fluxcd/pkg/kustomize v1.44.0 (the
   * version kustomize-controller v1.10.1 requires), kustomize_generator.go GenerateManifest:
   * `if exists, index := checkKustomizeImageExists(kus.Images, image.Name)` then
   * `if image.NewName != "" { kus.Images[index].NewName = ... }` and NewTag/Digest as one
   * unit. flate v0.6.5 replaces the whole entry, so the file's newName is lost.
   */
  {
    name: "spec.images merges into the kustomization file's entry of the same name",
    fixture: 'overlay-spec',
    explains: (d) =>
      d.key === PODINFO_DEPLOYMENT &&
      differsOnlyAt(d, ['spec', 'template', 'spec', 'containers', 0, 'image'], {
        ours: 'registry.example.com/podinfo:6.7.1',
        flate: 'ghcr.io/stefanprodan/podinfo:6.7.1',
      }),
    checkFlux: (cluster) => {
      const deploy = object(cluster, 'podinfo', 'Deployment', 'stg-podinfo', 'podinfo');
      expect(container(deploy)['image']).toBe('registry.example.com/podinfo:6.7.1');
    },
  },
  /**
   * The Secret cluster-tokens has SIGNING_KEY in data (old-key) and in stringData
   * (new-key). Flux reads the Secret from the API server (fluxcd/pkg/kustomize v1.44.0
   * kustomize_varsub.go LoadVariables: `for k, v := range secret.Data`), where stringData
   * "All keys and values are merged into the data field on write, overwriting any existing
   * values" (k8s.io/api core/v1 types.go, Secret.StringData); kustomize-controller also
   * folds stringData into data before applying (fluxcd/pkg/ssa normalize.go
   * normalizeSecret). flate v0.6.5 substitutes the data value.
   */
  {
    name: 'a Secret read by substituteFrom has its stringData merged over its data',
    fixture: 'post-build',
    explains: (d) =>
      d.key === WEB_SETTINGS &&
      differsOnlyAt(d, ['data', 'signing-key'], { ours: 'new-key', flate: 'old-key' }),
    checkFlux: (cluster) => {
      const settings = object(cluster, 'web', 'ConfigMap', 'web-settings', 'web');
      expect(at(settings, ['data', 'signing-key'])).toBe('new-key');
    },
  },
  /**
   * `automountServiceAccountToken: ${AUTOMOUNT:=yes}` substitutes to `yes`. Flux
   * substitutes the object's YAML and reads it back with sigs.k8s.io/yaml v1.6.0
   * YAMLToJSON (fluxcd/pkg/kustomize v1.44.0 kustomize_varsub.go varSubstitution), which
   * parses with go.yaml.in/yaml/v2, a YAML 1.1 reader: resolve.go lists "yes" among the
   * booleans, so the field is true. flate v0.6.5 keeps the string "yes".
   */
  {
    name: 'substituted YAML is read back as YAML 1.1 (yes is true)',
    fixture: 'post-build',
    explains: (d) =>
      d.key === WEB_DEPLOYMENT &&
      differsOnlyAt(d, ['spec', 'template', 'spec', 'automountServiceAccountToken'], {
        ours: true,
        flate: 'yes',
      }),
    checkFlux: (cluster) => {
      const deploy = object(cluster, 'web', 'Deployment', 'web', 'web');
      expect(at(podSpec(deploy), ['automountServiceAccountToken'])).toBe(true);
    },
  },
  /**
   * echo-lab lists valuesFiles `./charts/echo/values.yaml` and
   * `./charts/echo/values-lab.yaml`, paths in its GitRepository. source-controller
   * v1.10.1 builds a chart from a GitRepository with `chart.LocalReference{WorkDir:
   * sourceDir, Path: obj.Spec.Chart}` (helmchart_controller.go) and merges values files
   * with `mergeFileValues(localRef.WorkDir, opts.ValuesFiles, ...)` (builder_local.go):
   * relative to the source root, as the HelmChartTemplateSpec.ValuesFiles doc says
   * ("expected to be a relative path in the SourceRef"). flate v0.6.5 looks them up among
   * the chart's own files and fails the HelmRelease ("not found in chart").
   */
  {
    name: 'valuesFiles of a chart from a GitRepository are paths in the source, not the chart',
    fixture: 'helm-local-chart',
    explains: (d) =>
      d.producer === 'HelmRelease/echo/echo-lab' && d.flate === undefined && d.ours !== undefined,
    failures: ['HelmRelease/echo/echo-lab'],
    checkFlux: (cluster) => {
      expect(producer(cluster, 'HelmRelease', 'echo-lab').error).toBeUndefined();
      // values-lab.yaml turns metrics on.
      const metrics = cluster.objects.filter(
        (o) => o.producer.name === 'echo-lab' && objectMeta(o.manifest).name === 'lab-echo-metrics',
      );
      expect(metrics).toHaveLength(1);
    },
  },
  /**
   * after-broken dependsOn broken, whose path is missing. kustomize-controller v1.10.1
   * (kustomization_controller.go, reconcile) calls checkDependencies and, while the
   * dependency is not Ready, marks DependencyNotReady and requeues without building or
   * applying anything: Flux holds after-broken back. flate models that ("blocks").
   * fluxlens renders dependsOn only as an order and renders after-broken anyway, as it
   * renders suspended Kustomizations (test/integration/render-producers.test.ts): the
   * review shows what after-broken applies once broken is fixed. Here flate is the one
   * that matches a live cluster; what fluxlens must still get right is checked: the
   * dependency is recorded and the dependency's failure is reported.
   */
  {
    name: 'a Kustomization whose dependency failed is still rendered (Flux holds it back)',
    fixture: 'partial-failure',
    explains: (d) =>
      d.producer === 'Kustomization/flux-system/after-broken' &&
      d.flate === undefined &&
      d.ours !== undefined,
    checkFlux: (cluster) => {
      expect(producer(cluster, 'Kustomization', 'after-broken').dependsOn).toEqual([
        { kind: 'Kustomization', namespace: 'flux-system', name: 'broken' },
      ]);
      expect(producer(cluster, 'Kustomization', 'broken').error).toBe(
        "path 'apps/not-there' not found",
      );
    },
  },
];

function describeDifference(d: Difference): string {
  if (d.ours === undefined)
    return `${d.key}: only flate renders it\n  flate: ${JSON.stringify(d.flate)}`;
  if (d.flate === undefined)
    return `${d.key}: only fluxlens renders it\n  ours:  ${JSON.stringify(d.ours)}`;
  return `${d.key}: they differ\n  ours:  ${JSON.stringify(d.ours)}\n  flate: ${JSON.stringify(d.flate)}`;
}

if (!flateInstalled) {
  console.warn(
    'flate-oracle: flate is not installed (scripts/install-tools builds it); comparison with flate skipped',
  );
}

describe.skipIf(!flateInstalled)('flate renders the fixture repositories as fluxlens does', () => {
  it.each(FIXTURES)(
    '$name: every object matches, divergences checked the Flux way',
    async (fixture) => {
      const cluster = await render(fixture.name);
      const flate = renderWithFlate(fixtureDir(fixture.name), fixture.cluster);
      const ours = indexOurs(cluster);
      const theirs = indexFlate(flate);
      expect(theirs.size, `${flate.command} rendered nothing: ${flate.stderr}`).toBeGreaterThan(0);

      const divergences = DIVERGENCES.filter((d) => d.fixture === fixture.name);
      const applied = new Set<Divergence>();
      const unexplained: string[] = [];
      for (const d of differences(ours, theirs)) {
        const by = divergences.find((v) => v.explains(d));
        if (by) applied.add(by);
        else unexplained.push(describeDifference(d));
      }

      // A producer failing in one tool only must be a divergence's doing too.
      const oursFailed = cluster.producers.filter((p) => p.error !== undefined).map(producerKey);
      const flateFailed = flateFailures(flate);
      const oneSided = [
        ...oursFailed
          .filter((k) => !flateFailed.includes(k))
          .map((k) => `fails only in fluxlens: ${k}`),
        ...flateFailed
          .filter((k) => !oursFailed.includes(k))
          .map((k) => `fails only in flate: ${k}`),
      ];
      for (const line of oneSided) {
        const key = line.slice(line.indexOf(': ') + 2);
        const by = divergences.find((v) => v.failures?.includes(key));
        if (by) applied.add(by);
        else unexplained.push(line);
      }
      if (flate.exitCode !== 0 && flateFailed.length === 0) {
        unexplained.push(
          `flate exited ${flate.exitCode} naming no failed producer: ${flate.stderr}`,
        );
      }

      expect(unexplained, `unexplained differences from ${flate.command}`).toEqual([]);
      expect(
        divergences.filter((d) => !applied.has(d)).map((d) => d.name),
        'divergences listed for this fixture that no longer appear',
      ).toEqual([]);
      for (const d of applied) d.checkFlux(cluster);
    },
  );
});
