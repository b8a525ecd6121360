/**
 * Verdicts on what real repositories do, end to end with real git, kustomize and helm: a
 * runner set's pod template, a chart's crds/ folder, a configMapGenerator's new hash and
 * a Namespace that moves between two pruning Kustomizations.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { analyzeBranches } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream as yaml,
  type RepoFiles,
  type TestRepo,
  repositoryChartRelease,
} from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

function runnerSet(image: string, security: Record<string, unknown>): object {
  return {
    apiVersion: 'actions.github.com/v1alpha1',
    kind: 'AutoscalingRunnerSet',
    metadata: { name: 'arc-runners', namespace: 'arc' },
    spec: {
      githubConfigUrl: 'https://github.com/acme',
      githubConfigSecret: 'github-app',
      template: { spec: { containers: [{ name: 'runner', image, securityContext: security }] } },
    },
  };
}

function crd(plural: string, served: boolean): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      names: { kind: plural, plural, singular: plural },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      ],
    },
  };
}

const webRelease = repositoryChartRelease('web', 'apps', './charts/web');

const appsKustomization = (color: string, resources: string[]) =>
  yaml({
    resources,
    configMapGenerator: [{ name: 'app-config', namespace: 'apps', literals: [`color=${color}`] }],
  });

const webNamespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web' } };

function base(): RepoFiles {
  return {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': yaml(fluxKustomization('apps', './apps')),
    'clusters/prod/infra.yaml': yaml(fluxKustomization('infra', './infra')),
    'infra/namespace.yaml': yaml(webNamespace),
    'apps/kustomization.yaml': appsKustomization('red', ['runners.yaml', 'web.yaml']),
    'apps/runners.yaml': yaml(runnerSet('ghcr.io/actions/actions-runner:2.320.0', {})),
    'apps/web.yaml': yaml(webRelease),
    'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
    'charts/web/crds/widgets.yaml': yaml(crd('widgets', true)),
    'charts/web/crds/gadgets.yaml': yaml(crd('gadgets', true)),
    'charts/web/templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: "1"\n',
  };
}

/** The PR: every point at once; `null` deletes a file. */
const pullRequest: Record<string, string | null> = {
  'apps/kustomization.yaml': appsKustomization('blue', [
    'runners.yaml',
    'web.yaml',
    'namespace.yaml',
  ]),
  'apps/namespace.yaml': yaml(webNamespace),
  'infra/namespace.yaml': null,
  'infra/keep.yaml': yaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'keep', namespace: 'default' },
  }),
  'apps/runners.yaml': yaml(
    runnerSet('ghcr.io/actions/actions-runner:2.321.0', { privileged: true }),
  ),
  'charts/web/crds/widgets.yaml': yaml(crd('widgets', false)),
  'charts/web/crds/gadgets.yaml': null,
};

let result: AnalysisResult;

beforeAll(async () => {
  const repo = makeRepo(base(), { git: true });
  repos.push(repo);
  repo.commit('base');
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo.dir, ...args], {
      env: { PATH: process.env['PATH'] ?? '', HOME: repo.dir, GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('checkout', '-q', '-b', 'pr');
  for (const [path, text] of Object.entries(pullRequest)) {
    if (text === null) git('rm', '-q', path);
    else repo.write({ [path]: text });
  }
  repo.commit('pull request');
  result = await analyzeBranches(repo.dir, 'main', 'pr');
  expectValidAnalysis(JSON.parse(renderJson(result)));
});

const findings = (rule: string) =>
  result.findings
    .filter((f) => f.rule === rule)
    .map((f) => `${f.resource.kind} ${f.resource.name}`);

describe('a PR on real manifests', () => {
  it('renders without errors', () => {
    expect(result.errors).toEqual([]);
  });

  it('flags the privileged runner of an AutoscalingRunnerSet and lists its new image', () => {
    expect(findings('privileged-container')).toEqual(['AutoscalingRunnerSet arc-runners']);
    expect(result.clusters[0]?.images).toContainEqual({
      repository: 'ghcr.io/actions/actions-runner',
      from: '2.320.0',
      to: '2.321.0',
    });
  });

  it('says a changed CRD from the chart crds/ folder is not applied, and a dropped one stays', () => {
    const changed = result.findings.find((f) => f.rule === 'chart-crd-not-updated');
    expect(changed).toMatchObject({
      resource: { kind: 'CustomResourceDefinition', name: 'widgets.example.com' },
      file: 'charts/web/crds/widgets.yaml',
    });
    expect(findings('stateful-data-orphaned')).toEqual([
      'CustomResourceDefinition gadgets.example.com',
    ]);
    expect(findings('stateful-data-deleted')).toEqual([]);
  });

  it('shows a configMapGenerator change as one changed ConfigMap with its data diff', () => {
    const generated = result.changes.filter((c) => c.name.startsWith('app-config-'));
    expect(generated.map((c) => c.status)).toEqual(['changed']);
    expect(generated[0]?.diff).toContain('-  color: red');
    expect(generated[0]?.diff).toContain('+  color: blue');
  });

  it('flags the Namespace that moves from one pruning Kustomization to another', () => {
    const moved = result.changes.find((c) => c.kind === 'Namespace' && c.name === 'web');
    expect(moved?.status).toBe('moved');
    expect(findings('stateful-move-deleted')).toEqual(['Namespace web']);
    expect(renderMarkdown(result)).toContain(
      'Namespace web moves from Kustomization flux-system/infra to Kustomization flux-system/apps',
    );
  });
});
