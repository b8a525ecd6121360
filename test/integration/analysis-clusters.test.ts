/**
 * Which clusters a diff reviews: the base policy's, plus the ones a PR adds to its own
 * policy (a new cluster must not pass as "no changes"), and a clear word when a requested
 * entry folder exists at neither revision.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { UsageError } from '../../src/errors.js';
import { analyze as analyzeOutcome, type AnalysisRequest } from '../../src/analysis/index.js';
import { testMachine, testRenderOptions, testRunner } from '../support/render.js';
import { bootstrap, makeRepo, type RepoFiles, type TestRepo, yamlStream } from '../support/repo.js';

const machine = testMachine;

/** The analysis result; the outcome's failOn and revisions are checked elsewhere. */
async function analyze(...args: Parameters<typeof analyzeOutcome>) {
  return (await analyzeOutcome(...args)).result;
}
const runner = testRunner();

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const yaml = yamlStream;

function configMap(name: string): string {
  return yaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'apps' },
    data: { a: '1' },
  });
}

const PROD_ONLY = 'clusters:\n  - name: prod\n    path: clusters/prod\n';

const BASE: RepoFiles = {
  '.fluxlens.yaml': PROD_ONLY,
  'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/config.yaml': configMap('prod-config'),
};

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-C', dir, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** main holds BASE; branch `pr` applies `change` on top of it. */
function pullRequest(change: RepoFiles): TestRepo {
  const repo = makeRepo(BASE, { git: true });
  repos.push(repo);
  repo.commit('base');
  git(repo.dir, 'checkout', '-q', '-b', 'pr');
  repo.write(change);
  repo.commit('pull request');
  return repo;
}

function analyzeRepo(repo: TestRepo, paths: string[] = []): Promise<AnalysisResult> {
  const request: AnalysisRequest = {
    repoDir: repo.dir,
    base: 'main',
    head: 'pr',
    paths,
    engine: 'builtin',
    render: testRenderOptions,
    sources: [],
  };
  return analyze(request, { runner, machine, now: () => 0 });
}

const NEW_CLUSTER: RepoFiles = {
  'clusters/edge/flux-system.yaml': bootstrap('./clusters/edge'),
  'clusters/edge/config.yaml': configMap('edge-config'),
};

describe('the clusters a diff reviews', () => {
  it('reviews a cluster the PR adds to its own policy as a new cluster', async () => {
    const repo = pullRequest({
      ...NEW_CLUSTER,
      '.fluxlens.yaml': `${PROD_ONLY}  - name: edge\n    path: clusters/edge\n`,
    });
    const result = await analyzeRepo(repo);
    expect(result.clusters.map((c) => [c.name, c.added])).toEqual([
      ['edge', 3],
      ['prod', 0],
    ]);
    expect(result.verdict.headline).not.toBe('No changes to the rendered cluster');
    const edge = await analyzeRepo(repo, ['clusters/edge']);
    expect(edge.clusters.map((c) => c.name)).toEqual(['edge']);
  });

  it('takes nothing else from the PR policy, and ignores one that does not parse', async () => {
    const relaxed = pullRequest({
      ...NEW_CLUSTER,
      '.fluxlens.yaml': `${PROD_ONLY}  - name: prod-again\n    path: clusters/prod\nfailOn: never\n`,
    });
    expect((await analyzeRepo(relaxed)).clusters.map((c) => c.name)).toEqual(['prod']);
    const broken = pullRequest({ ...NEW_CLUSTER, '.fluxlens.yaml': 'clusters: [\n' });
    expect((await analyzeRepo(broken)).clusters.map((c) => c.name)).toEqual(['prod']);
  });

  it.each([
    [
      'exists at neither revision',
      'clusters/nowhere',
      "'clusters/nowhere' is not a folder at base",
    ],
    ['holds no Flux objects', 'docs', "no Flux Kustomization or HelmRelease under 'docs' at base"],
  ])('says which when an entry folder %s', async (_case, path, message) => {
    const repo = makeRepo(
      {
        'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/config.yaml': configMap('prod-config'),
        'docs/README.md': '# Runbook\n',
      },
      { git: true },
    );
    repos.push(repo);
    repo.commit('base');
    git(repo.dir, 'checkout', '-q', '-b', 'pr');
    repo.commit('empty pull request');
    const err = await analyzeRepo(repo, [path]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toContain(message);
  });
});
