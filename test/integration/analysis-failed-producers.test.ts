/**
 * A producer that stops rendering in a PR: Flux neither applies nor prunes a Kustomization
 * that fails to build, and helm-controller leaves a release it cannot render as it was, so
 * the analysis reports the render error, not the deletion of everything it applied.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { analyze as analyzeOutcome } from '../../src/analysis/index.js';
import type { RenderEngine } from '../../src/render/index.js';
import type { Producer, RenderedCluster } from '../../src/model/render.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { testMachine, testRenderOptions, testRunner } from '../support/render.js';
import {
  bootstrap,
  makeRepo,
  type RepoFiles,
  type TestRepo,
  yamlStream,
  fluxKustomization,
} from '../support/repo.js';

const machine = testMachine;

/** The analysis result; the outcome's failOn and revisions are checked elsewhere. */
async function analyze(...args: Parameters<typeof analyzeOutcome>) {
  return (await analyzeOutcome(...args)).result;
}
const runner = testRunner();

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const yaml = yamlStream;

const ks = fluxKustomization;

const claim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'apps' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};

const release = {
  apiVersion: 'helm.toolkit.fluxcd.io/v2',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'apps' },
  spec: {
    interval: '1h',
    chart: {
      spec: {
        chart: './charts/web',
        sourceRef: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' },
      },
    },
  },
};

const CHART: RepoFiles = {
  'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
  'charts/web/templates/claim.yaml': `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ .Release.Name }}-data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`,
};

/**
 * `apps` applies a claim, the HelmRelease `web` (a local chart with a claim) and a child
 * Kustomization `child`, which applies a claim of its own.
 */
const BASE: RepoFiles = {
  'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/apps.yaml': yaml(ks('apps', './apps')),
  'apps/kustomization.yaml': yaml({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: ['claim.yaml', 'release.yaml', 'child.yaml'],
  }),
  'apps/claim.yaml': yaml(claim),
  'apps/release.yaml': yaml(release),
  'apps/child.yaml': yaml(ks('child', './child')),
  'child/claim.yaml': yaml({ ...claim, metadata: { name: 'child-data', namespace: 'apps' } }),
  ...CHART,
};

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-C', dir, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** main holds BASE; branch `pr` applies `change` on top of it. */
async function analyzePullRequest(change: RepoFiles): Promise<AnalysisResult> {
  const repo = makeRepo(BASE, { git: true });
  repos.push(repo);
  repo.commit('base');
  git(repo.dir, 'checkout', '-q', '-b', 'pr');
  repo.write(change);
  repo.commit('pull request');
  return analyze(
    {
      repoDir: repo.dir,
      base: 'main',
      head: 'pr',
      paths: ['clusters/prod'],
      engine: 'builtin',
      render: testRenderOptions,
      sources: [],
    },
    { runner, machine, now: () => 0 },
  );
}

const introducedBy = (result: AnalysisResult) =>
  result.errors.filter((e) => e.introduced).map((e) => `${e.producer.kind}/${e.producer.name}`);

describe('a producer that fails to render at head', () => {
  it('keeps what a broken Kustomization applied, its children included, as last applied', async () => {
    const result = await analyzePullRequest({
      'apps/kustomization.yaml': yaml({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: ['claim.yaml', 'release.yaml', 'child.yaml', 'missing.yaml'],
      }),
    });
    expect(introducedBy(result)).toEqual(['Kustomization/apps']);
    expect(result.changes).toEqual([]);
    expect(result.findings.map((f) => [f.rule, f.resource.name])).toEqual([
      ['render-error-introduced', 'apps'],
    ]);
    expect(renderMarkdown(result)).not.toContain('removed**');
  });

  it('keeps what a HelmRelease whose chart no longer renders installed', async () => {
    const result = await analyzePullRequest({
      'charts/web/templates/broken.yaml': '{{ .Values.missing.field }}\n',
    });
    expect(introducedBy(result)).toEqual(['HelmRelease/web']);
    expect(result.changes).toEqual([]);
    expect(result.findings.map((f) => [f.rule, f.resource.name])).toEqual([
      ['render-error-introduced', 'web'],
    ]);
  });

  it('still shows what the rest of the cluster changes', async () => {
    const result = await analyzePullRequest({
      'charts/web/templates/broken.yaml': '{{ .Values.missing.field }}\n',
      'child/claim.yaml': yaml({ ...claim, metadata: { name: 'other-data', namespace: 'apps' } }),
    });
    expect(result.changes.map((c) => [c.status, c.name])).toEqual([
      ['removed', 'child-data'],
      ['added', 'other-data'],
    ]);
  });
});

describe('a producer the engine did not render at head', () => {
  const producer = (name: string, extra: Partial<Producer> = {}): Producer => ({
    kind: 'Kustomization',
    namespace: 'flux-system',
    name,
    path: name,
    source: 'GitRepository/flux-system/flux-system',
    suspend: false,
    prune: true,
    dependsOn: [],
    definedIn: { file: `clusters/prod/${name}.yaml` },
    ...extra,
  });
  const object = (name: string, owner: string) => ({
    producer: { kind: 'Kustomization' as const, namespace: 'flux-system', name: owner },
    manifest: { ...claim, metadata: { name, namespace: 'apps' } },
  });

  /** flux-local stops its whole run at the first error: the rest is listed as skipped. */
  function engineFor(baseSha: string): RenderEngine {
    const base: RenderedCluster = {
      producers: [producer('apps'), producer('infra')],
      objects: [object('apps-data', 'apps'), object('infra-data', 'infra')],
      errors: [],
      tools: {},
    };
    const head: RenderedCluster = {
      producers: [
        producer('apps', { error: 'kustomize build failed' }),
        producer('infra', { skipped: 'not rendered: the run stopped at apps' }),
      ],
      objects: [],
      errors: [{ producer: producer('apps'), message: 'kustomize build failed' }],
      tools: {},
    };
    return {
      name: 'flux-local',
      render: (request) => Promise.resolve(request.rev === baseSha ? base : head),
    };
  }

  it('keeps its objects as they were rather than calling them removed', async () => {
    const repo = makeRepo(
      { 'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod') },
      {
        git: true,
      },
    );
    repos.push(repo);
    const baseSha = repo.commit('base');
    git(repo.dir, 'checkout', '-q', '-b', 'pr');
    repo.write({ 'clusters/prod/note.txt': 'break apps\n' });
    repo.commit('pull request');
    const result = await analyze(
      {
        repoDir: repo.dir,
        base: 'main',
        head: 'pr',
        paths: ['clusters/prod'],
        engine: 'flux-local',
        render: testRenderOptions,
        sources: [],
      },
      { runner, machine, now: () => 0, createEngine: () => engineFor(baseSha) },
    );
    expect(result.changes).toEqual([]);
    expect(result.findings.map((f) => [f.rule, f.resource.name])).toEqual([
      ['render-error-introduced', 'apps'],
    ]);
  });
});
