/**
 * Issue 11, point 7: an object that two Kustomizations (or a Kustomization and a
 * HelmRelease) apply. Flux applies both, and the last to reconcile wins, on every
 * reconcile. `fluxlens render` says so with a render error naming both producers;
 * `fluxlens diff` reports it as a finding when the pull request brings it in.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../support/cli.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream,
  type TestRepo,
} from '../support/repo.js';

const IMAGE = `nginx:1.27.0@sha256:${'a'.repeat(64)}`;

const web = (replicas: number): string =>
  stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'apps' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: IMAGE }] },
      },
    },
  });

const configMap = (name: string): string =>
  stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'apps' } });

const release = stringify({
  apiVersion: 'helm.toolkit.fluxcd.io/v2',
  kind: 'HelmRelease',
  metadata: { name: 'hello', namespace: 'apps' },
  spec: {
    interval: '1h',
    chart: {
      spec: {
        chart: './charts/hello',
        sourceRef: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' },
      },
    },
  },
});

const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();

let repo: TestRepo;

/**
 * main: apps-a applies Deployment apps/web, apps-b a ConfigMap. Branch `copy` gives apps-b
 * the same Deployment, `differ` one with other replicas, `helm` makes apps-a apply the
 * ConfigMap a HelmRelease of apps-b renders.
 */
beforeAll(() => {
  repo = makeRepo(
    {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yamlStream(
        fluxKustomization('apps-a', './apps-a'),
        fluxKustomization('apps-b', './apps-b'),
      ),
      'apps-a/web.yaml': web(2),
      'apps-b/other.yaml': configMap('other'),
      'charts/hello/Chart.yaml': 'apiVersion: v2\nname: hello\nversion: 1.0.0\n',
      'charts/hello/templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\n',
    },
    { git: true },
  );
  repo.commit('base');
  git(repo.dir, 'checkout', '-q', '-b', 'copy');
  repo.write({ 'apps-b/web.yaml': web(2) });
  repo.commit('apps-b applies web too');
  git(repo.dir, 'checkout', '-q', '-b', 'differ', 'main');
  repo.write({ 'apps-b/web.yaml': web(3) });
  repo.commit('apps-b applies web with 3 replicas');
  git(repo.dir, 'checkout', '-q', '-b', 'helm', 'main');
  repo.write({ 'apps-a/hello.yaml': configMap('hello'), 'apps-b/release.yaml': release });
  repo.commit('apps-a applies the ConfigMap the release renders');
  git(repo.dir, 'checkout', '-q', 'main');
});

afterAll(() => repo.remove());

const APPS_A = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps-a' };
const APPS_B = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps-b' };

interface RenderJson {
  objects: Array<{ producer: { name: string }; manifest: { kind: string } }>;
  errors: unknown[];
}

describe('fluxlens render of an object two producers apply', () => {
  it('prints both copies and a render error naming both producers, and exits 0', async () => {
    const run = await runCli([
      'render',
      '--repo',
      repo.dir,
      '--rev',
      'differ',
      '--path',
      'clusters/prod',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      '  Kustomization flux-system/apps-b (apps-b/web.yaml): Deployment apps/web is also applied by Kustomization flux-system/apps-a: Flux would apply both, and the last one to reconcile wins\n',
    );
    const json = JSON.parse(
      (
        await runCli([
          'render',
          '--repo',
          repo.dir,
          '--rev',
          'differ',
          '--path',
          'clusters/prod',
          '--output',
          'json',
        ])
      ).stdout,
    ) as RenderJson;
    expect(json.errors).toEqual([
      {
        producer: APPS_B,
        file: 'apps-b/web.yaml',
        message:
          'Deployment apps/web is also applied by Kustomization flux-system/apps-a: Flux would apply both, and the last one to reconcile wins',
        code: 'applied-twice',
      },
    ]);
    const copies = json.objects.filter((o) => o.manifest.kind === 'Deployment');
    expect(copies.map((o) => o.producer.name)).toEqual(['apps-a', 'apps-b']);
  });

  it('names the HelmRelease and the Kustomization that apply one ConfigMap', async () => {
    const run = await runCli([
      'render',
      '--repo',
      repo.dir,
      '--rev',
      'helm',
      '--path',
      'clusters/prod',
      '--output',
      'json',
    ]);
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as RenderJson).errors).toEqual([
      {
        producer: APPS_A,
        file: 'apps-a/hello.yaml',
        message:
          'ConfigMap apps/hello is also applied by HelmRelease apps/hello: Flux would apply both, and the last one to reconcile wins',
        code: 'applied-twice',
      },
    ]);
  });
});

interface DiffJson {
  verdict: { level: string };
  findings: Array<{ rule: string; level: string; producer?: { name: string }; file?: string }>;
}

describe('fluxlens diff of a pull request that makes a second producer apply an object', () => {
  const diff = async (head: string) => {
    const run = await runCli([
      'diff',
      '--repo',
      repo.dir,
      '--base',
      'main',
      '--head',
      head,
      '--format',
      'json',
    ]);
    return { code: run.code, result: JSON.parse(run.stdout) as DiffJson };
  };

  it.each([
    ['differ', 'flux-applied-twice', 'danger', 1],
    ['copy', 'flux-applied-twice-identical', 'caution', 0],
  ])('reports the branch %s as %s at %s and exits %i', async (head, rule, level, code) => {
    const run = await diff(head);
    expect(run.result.findings.map((f) => [f.rule, f.level, f.producer?.name, f.file])).toEqual([
      [rule, level, 'apps-b', 'apps-b/web.yaml'],
    ]);
    expect(run.result.verdict.level).toBe(level);
    expect(run.code).toBe(code);
  });

  it('stays quiet when the conflict was there at base already', async () => {
    const run = await runCli([
      'diff',
      '--repo',
      repo.dir,
      '--base',
      'copy',
      '--head',
      'copy',
      '--format',
      'json',
    ]);
    expect((JSON.parse(run.stdout) as DiffJson).findings).toEqual([]);
    expect(run.code).toBe(0);
  });
});
