/**
 * ConfigMaps and Secrets that only the cluster holds (an ExternalSecret or an operator
 * creates them): a Kustomization substituting from one, or a HelmRelease reading values
 * from one, still renders, with the unknown values shown as markers; the review says so
 * once per producer when the pull request brings it in, and a repository whose policy asks
 * for Flux's strictness gets the render error instead. Real git, kustomize and helm.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { analyze, type AnalysisRequest } from '../../src/analysis/index.js';
import type { AnalysisResult } from '../../src/model/analysis.js';
import type { RenderedCluster } from '../../src/model/render.js';
import { builtinEngine, testMachine, testRenderOptions, testRunner } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream,
  type RepoFiles,
  type TestRepo,
  repositoryChartRelease,
} from '../support/repo.js';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));

const runner = testRunner();
const RULE = 'source-in-cluster-only';

/** The Secret an ExternalSecret makes in the cluster: the repository holds only this. */
const EXTERNAL_SECRET = yamlStream({
  apiVersion: 'external-secrets.io/v1beta1',
  kind: 'ExternalSecret',
  metadata: { name: 'cluster-secrets', namespace: 'flux-system' },
  spec: {
    secretStoreRef: { kind: 'ClusterSecretStore', name: 'vault' },
    target: { name: 'cluster-secrets' },
    dataFrom: [{ extract: { key: 'cluster' } }],
  },
});

function apps(postBuild?: Record<string, unknown>): string {
  const ks = fluxKustomization('apps', './apps');
  if (postBuild) (ks['spec'] as Record<string, unknown>)['postBuild'] = postBuild;
  return yamlStream(ks);
}

const FROM_CLUSTER_SECRETS = {
  substitute: { APP: 'web' },
  substituteFrom: [{ kind: 'Secret', name: 'cluster-secrets' }],
};

function ingress(path: string): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: '${APP}', namespace: 'apps' },
    spec: {
      rules: [
        {
          host: '${APP}.${SECRET_DOMAIN}',
          http: {
            paths: [
              {
                path,
                pathType: 'Prefix',
                backend: { service: { name: '${APP}', port: { number: 80 } } },
              },
            ],
          },
        },
      ],
    },
  };
}

const settings = (color: string): object => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: '${APP}-settings', namespace: 'apps' },
  data: { color, region: '${REGION^^}', short: '${SECRET_DOMAIN:0:7}' },
});

function fleet(postBuild: Record<string, unknown>, path = '/'): RepoFiles {
  return {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': apps(postBuild),
    'clusters/prod/cluster-secrets.yaml': EXTERNAL_SECRET,
    'apps/ingress.yaml': yamlStream(ingress(path), settings('red')),
  };
}

function repo(files: RepoFiles): TestRepo {
  const made = makeRepo(files, { git: true });
  cleanups.push(() => made.remove());
  return made;
}

function request(dir: string, base: string, head: string): AnalysisRequest {
  return {
    repoDir: dir,
    base,
    head,
    paths: ['clusters/prod'],
    engine: 'builtin',
    render: testRenderOptions,
    sources: [],
  };
}

/** A base commit of `before`, a head commit with `after` written over it. */
async function review(before: RepoFiles, after: RepoFiles): Promise<AnalysisResult> {
  const r = repo(before);
  const base = r.commit('base');
  r.write(after);
  const head = r.commit('pull request');
  return (await analyze(request(r.dir, base, head), { runner, machine: testMachine })).result;
}

const findings = (result: AnalysisResult) => result.findings.filter((f) => f.rule === RULE);

describe('a Kustomization substituting from a Secret only the cluster holds', () => {
  it('renders with markers, so a change under it shows in the diff', async () => {
    const result = await review(fleet(FROM_CLUSTER_SECRETS, '/'), {
      'apps/ingress.yaml': yamlStream(ingress('/v2'), settings('red')),
    });
    expect(result.errors).toEqual([]);
    expect(result.changes.map((c) => `${c.status} ${c.kind}/${c.name}`)).toEqual([
      'changed Ingress/web',
    ]);
    const [change] = result.changes;
    expect(change?.new).toMatchObject({
      spec: { rules: [{ host: 'web.unknown-secret-domain', http: { paths: [{ path: '/v2' }] } }] },
    });
    // Present at base already: nothing the pull request introduces.
    expect(findings(result)).toEqual([]);
  });

  it('applies operators to the marker and keeps an unchanged object unchanged', async () => {
    const result = await review(fleet(FROM_CLUSTER_SECRETS), {
      'apps/ingress.yaml': yamlStream(ingress('/'), settings('blue')),
    });
    expect(result.changes).toHaveLength(1);
    expect(result.changes[0]?.new).toMatchObject({
      metadata: { name: 'web-settings' },
      data: { color: 'blue', region: 'UNKNOWN-REGION', short: 'unknown' },
    });
  });

  it('says so once, when the pull request starts substituting from it', async () => {
    const inline = { substitute: { APP: 'web', SECRET_DOMAIN: 'example.com', REGION: 'eu' } };
    const result = await review(fleet(inline), {
      'clusters/prod/apps.yaml': apps(FROM_CLUSTER_SECRETS),
    });
    expect(result.errors).toEqual([]);
    expect(findings(result)).toEqual([
      expect.objectContaining({
        level: 'info',
        resource: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
        message: expect.stringContaining(
          'the rendered cluster has no Secret flux-system/cluster-secrets',
        ),
      }),
    ]);
    expect(result.changes.find((c) => c.kind === 'Ingress')).toMatchObject({
      status: 'changed',
      old: { spec: { rules: [{ host: 'web.example.com' }] } },
      new: { spec: { rules: [{ host: 'web.unknown-secret-domain' }] } },
    });
  });

  it('fails the Kustomization as Flux does when the policy says inClusterSources: fail', async () => {
    const strict = { ...fleet(FROM_CLUSTER_SECRETS), '.fluxlens.yaml': 'inClusterSources: fail\n' };
    const result = await review(strict, {
      'apps/ingress.yaml': yamlStream(ingress('/v2'), settings('red')),
    });
    expect(result.errors).toContainEqual(
      expect.objectContaining({
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
        side: 'head',
        message: "post build failed: substitute from 'Secret/cluster-secrets' error: not found",
      }),
    );
    expect(result.changes.filter((c) => c.kind === 'Ingress')).toEqual([]);
    expect(findings(result)).toEqual([]);
  });
});

/** A local chart that shows what its values became. */
const CHART: RepoFiles = {
  'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 0.1.0\n',
  'charts/web/values.yaml': 'message: default\ngreeting: none\npassword: unset\n',
  'charts/web/templates/cm.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-out
data:
  message: {{ .Values.message | quote }}
  greeting: {{ .Values.greeting | quote }}
  password: {{ .Values.password | quote }}
`,
};

const HELM_FILES: RepoFiles = {
  'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/apps.yaml': apps(),
  ...CHART,
  'apps/release.yaml': yamlStream(
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-values', namespace: 'apps' },
      data: { 'values.yaml': 'greeting: from-configmap\n' },
    },
    repositoryChartRelease('web', 'apps', './charts/web', {
      valuesFrom: [
        { kind: 'ConfigMap', name: 'web-values' },
        { kind: 'Secret', name: 'web-auth', valuesKey: 'password', targetPath: 'password' },
      ],
      values: { message: 'from-spec' },
    }),
  ),
};

function rendered(cluster: RenderedCluster, name: string): Record<string, unknown> | undefined {
  const found = cluster.objects.find(
    (o) =>
      o.manifest['kind'] === 'ConfigMap' &&
      (o.manifest['metadata'] as { name: string }).name === name,
  );
  return found?.manifest['data'] as Record<string, unknown> | undefined;
}

describe('a HelmRelease reading values from a Secret only the cluster holds', () => {
  it('renders with the rest of its values and records what it assumed', async () => {
    const r = repo(HELM_FILES);
    const cluster = await builtinEngine({ inClusterSources: 'assume' }).render({
      repoDir: r.dir,
      entry: 'clusters/prod',
      sources: [],
    });
    expect(cluster.errors).toEqual([]);
    expect(rendered(cluster, 'web-out')).toEqual({
      message: 'from-spec',
      greeting: 'from-configmap',
      password: 'unset',
    });
    expect(cluster.producers.find((p) => p.name === 'web')?.assumed).toEqual([
      'the rendered cluster has no Secret apps/web-auth: valuesFrom leaves its values out',
    ]);
  });

  it('fails the release as Flux does with inClusterSources: fail', async () => {
    const r = repo(HELM_FILES);
    const cluster = await builtinEngine({ inClusterSources: 'fail' }).render({
      repoDir: r.dir,
      entry: 'clusters/prod',
      sources: [],
    });
    expect(cluster.producers.find((p) => p.name === 'web')?.error).toBe(
      "could not resolve Secret chart values reference 'apps/web-auth' with key 'password': resource not found",
    );
    expect(rendered(cluster, 'web-out')).toBeUndefined();
  });

  it('says so once in the review of the pull request that adds it', async () => {
    const { 'apps/release.yaml': release, ...rest } = HELM_FILES;
    const base = { ...rest, 'apps/release.yaml': yamlStream(settings('red')) };
    const result = await review(base, { 'apps/release.yaml': release ?? '' });
    expect(result.errors).toEqual([]);
    expect(findings(result)).toEqual([
      expect.objectContaining({
        resource: { kind: 'HelmRelease', namespace: 'apps', name: 'web' },
        message: expect.stringContaining('the rendered cluster has no Secret apps/web-auth'),
      }),
    ]);
    expect(result.changes.map((c) => `${c.status} ${c.kind}/${c.name}`)).toContain(
      'added ConfigMap/web-out',
    );
  });
});
