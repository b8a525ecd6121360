/**
 * A PR whose changed HelmReleases could not be rendered because their chart could not be
 * fetched (a port with nothing listening, a chart server that answers 401) is not assessed:
 * the verdict says so first, is never OK or routine, the check run is neutral and the exit
 * code stays the gate's. An unreachable chart is never a render error the PR introduced,
 * a real template error still is, and removing a broken producer fixes nothing.
 */
import { execFileSync } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { RenderOptions } from '../../src/render/index.js';
import { renderCheckRun } from '../../src/report/check-run.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { runCli } from '../support/cli.js';
import { analyzeBranches } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream as yaml,
  type RepoFiles,
  type TestRepo,
  helmRepositoryRelease,
  repositoryChartRelease,
} from '../support/repo.js';

const repos: TestRepo[] = [];
let locked: Server;
let lockedPort = 0;
let closedPort = 0;

/** A port that was free a moment ago: nothing listens there, connections are refused. */
async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  closedPort = await freePort();
  locked = createHttpServer((_req, res) => {
    res.writeHead(401, { 'www-authenticate': 'Basic realm="charts"' }).end();
  });
  await new Promise<void>((resolve) => locked.listen(0, '127.0.0.1', resolve));
  const address = locked.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  lockedPort = address.port;
});
afterAll(async () => {
  repos.forEach((r) => r.remove());
  await new Promise<void>((resolve) => locked.close(() => resolve()));
});

const helmRepository = (name: string, url: string) => ({
  apiVersion: 'source.toolkit.fluxcd.io/v1',
  kind: 'HelmRepository',
  metadata: { name, namespace: 'apps' },
  spec: { interval: '1h', url },
});

const remoteRelease = (name: string, repository: string, values: Record<string, unknown>) =>
  helmRepositoryRelease(name, 'apps', { chart: 'hello', version: '1.0.0', repository }, { values });

const localRelease = repositoryChartRelease('web', 'apps', './charts/web');

function base(): RepoFiles {
  return {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': yaml(fluxKustomization('apps', './apps')),
    'apps/sources.yaml': yaml(
      helmRepository('refused', `http://127.0.0.1:${closedPort}/`),
      helmRepository('locked', `http://127.0.0.1:${lockedPort}/`),
    ),
    'apps/runner.yaml': yaml(remoteRelease('runner', 'refused', { privileged: false })),
    'apps/storage.yaml': yaml(remoteRelease('storage', 'locked', { storageClass: 'fast' })),
    'apps/web.yaml': yaml(localRelease),
    'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
    'charts/web/templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: "1"\n',
  };
}

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-C', dir, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** main holds `files`; branch `pr` applies `change` (null deletes a file). */
function pullRequest(change: Record<string, string | null>, files = base()): TestRepo {
  const repo = makeRepo(files, { git: true });
  repos.push(repo);
  repo.commit('base');
  git(repo.dir, 'checkout', '-q', '-b', 'pr');
  for (const [path, text] of Object.entries(change)) {
    if (text === null) git(repo.dir, 'rm', '-q', path);
    else repo.write({ [path]: text });
  }
  repo.commit('pull request');
  return repo;
}

/** Online, as the service renders: the chart servers are really asked. */
async function analyzeOnline(
  repo: TestRepo,
  engine: 'builtin' | 'flux-local' = 'builtin',
): Promise<AnalysisResult> {
  return analyzeBranches(repo.dir, 'main', 'pr', {
    render: RenderOptions.parse({ offline: false }),
    engine,
  });
}

const rules = (result: AnalysisResult) =>
  result.findings.map((f) => `${f.rule} ${f.resource.name}`);

describe('a PR that changes HelmReleases whose charts cannot be fetched', () => {
  let repo: TestRepo;
  let result: AnalysisResult;
  beforeAll(async () => {
    repo = pullRequest({
      'apps/runner.yaml': yaml(remoteRelease('runner', 'refused', { privileged: true })),
      'apps/storage.yaml': yaml(remoteRelease('storage', 'locked', { storageClass: 'slow' })),
    });
    result = await analyzeOnline(repo);
  });

  it('says first that they were not assessed, and is neither OK nor routine', () => {
    expect(result.verdict.headline).toMatch(
      /^not assessed: 2 changed HelmReleases could not be rendered: chart unavailable/,
    );
    expect(result.verdict.level).not.toBe('none');
    expect(result.verdict.routine).toBe(false);
    expect(result.verdict.unassessed).toBe(2);
  });

  it('lists them per cluster in the JSON, which matches its schema', () => {
    const json = JSON.parse(renderJson(result)) as AnalysisResult;
    expectValidAnalysis(json);
    expect(json.clusters[0]?.unassessed).toEqual([
      {
        producer: { kind: 'HelmRelease', namespace: 'apps', name: 'runner' },
        side: 'both',
        reason: 'chart unavailable',
      },
      {
        producer: { kind: 'HelmRelease', namespace: 'apps', name: 'storage' },
        side: 'both',
        reason: 'chart unavailable',
      },
    ]);
    expect(result.errors.filter((e) => e.side === 'head').map((e) => e.message)).toEqual([
      expect.stringMatching(/ECONNREFUSED/),
      expect.stringMatching(/HTTP 401/),
    ]);
  });

  it('concludes the check run neutral under that title, and shows them before anything else', () => {
    const run = renderCheckRun(result, 'danger');
    expect(run.conclusion).toBe('neutral');
    expect(run.title).toMatch(/^CAUTION: not assessed: 2 changed HelmReleases/);
    const markdown = renderMarkdown(result);
    expect(markdown.indexOf('#### Not assessed')).toBeGreaterThan(0);
    expect(markdown).toContain('`HelmRelease/apps/runner`: could not be rendered at base and head');
  });

  it('exits 0 under failOn danger: the exit code is the gate, and nothing was found', async () => {
    const run = await runCli([
      'diff',
      '--repo',
      repo.dir,
      '--base',
      'main',
      '--head',
      'pr',
      '--fail-on',
      'danger',
      '--format',
      'json',
    ]);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as AnalysisResult;
    expect(json.verdict.headline).toMatch(/^not assessed: /);
  });
});

describe('what an unreachable chart is not', () => {
  it('is not a render error introduced by a PR that adds an app using it', async () => {
    const result = await analyzeOnline(
      pullRequest({ 'apps/new.yaml': yaml(remoteRelease('newapp', 'refused', {})) }),
    );
    expect(rules(result)).not.toContain('render-error-introduced newapp');
    expect(result.errors.filter((e) => e.introduced)).toEqual([]);
    expect(result.clusters[0]?.unassessed).toEqual([
      {
        producer: { kind: 'HelmRelease', namespace: 'apps', name: 'newapp' },
        side: 'head',
        reason: 'chart unavailable',
      },
    ]);
    expect(result.verdict.headline).toMatch(/^not assessed: 1 changed HelmRelease could not/);
  });

  it('is not a render error introduced under the flux-local engine either', async () => {
    const result = await analyzeOnline(
      pullRequest({ 'apps/new.yaml': yaml(remoteRelease('newapp', 'refused', {})) }),
      'flux-local',
    );
    expect(rules(result)).not.toContain('render-error-introduced newapp');
    expect(result.clusters[0]?.unassessed).toContainEqual({
      producer: { kind: 'HelmRelease', namespace: 'apps', name: 'newapp' },
      side: 'head',
      reason: 'chart unavailable',
    });
    expect(result.verdict.headline).toMatch(/^not assessed: /);
  });

  it('is no business of a PR that leaves those HelmReleases alone', async () => {
    const result = await analyzeOnline(
      pullRequest({
        'charts/web/templates/cm.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: "2"\n',
      }),
    );
    expect(result.clusters[0]?.unassessed).toEqual([]);
    expect(result.verdict.headline).not.toMatch(/not assessed/);
    expect(renderCheckRun(result, 'danger').conclusion).toBe('success');
  });
});

describe('a Kustomization from a source fluxlens cannot see', () => {
  const infra = {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'GitRepository',
    metadata: { name: 'infra', namespace: 'flux-system' },
    spec: { interval: '1h', url: 'https://git.example.com/infra.git', ref: { branch: 'main' } },
  };
  const fromInfra = (path: string) => ({
    ...fluxKustomization('infra', path),
    spec: {
      ...(fluxKustomization('infra', path)['spec'] as object),
      sourceRef: { kind: 'GitRepository', name: 'infra' },
    },
  });

  it('is not assessed when the PR changes it, and the verdict says so', async () => {
    const files = { ...base(), 'clusters/prod/infra.yaml': yaml(infra, fromInfra('./base')) };
    const result = await analyzeOnline(
      pullRequest({ 'clusters/prod/infra.yaml': yaml(infra, fromInfra('./overlays/prod')) }, files),
    );
    expect(result.clusters[0]?.unassessed).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' },
        side: 'both',
        reason: 'source not mapped (--source)',
      },
    ]);
    expect(result.verdict.routine).toBe(false);
    expect(result.verdict.headline).toMatch(/^not assessed: 1 changed Kustomization could not/);
    expect(renderCheckRun(result, 'danger').conclusion).toBe('neutral');
  });
});

describe('a Kustomization broken at both revisions', () => {
  // Strict substitution fails both: `${MISSING}` is defined nowhere. Both read ./shared.
  const substituted = (name: string, path: string) => {
    const ks = fluxKustomization(name, path);
    const spec = { ...(ks['spec'] as object), postBuild: { substitute: { APP: name } } };
    return { ...ks, spec };
  };
  const configMap = (name: string, data: Record<string, string>) =>
    yaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'apps' }, data });
  const files = (): RepoFiles => ({
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': yaml(substituted('db', './db'), substituted('cron', './cron')),
    'db/kustomization.yaml': 'resources:\n  - ../shared\n  - db.yaml\n',
    'db/db.yaml': configMap('db-${APP}', { password: '${MISSING}' }),
    'cron/kustomization.yaml': 'resources:\n  - cron.yaml\n',
    'cron/cron.yaml': configMap('cron-${APP}', { token: '${MISSING}' }),
    'shared/kustomization.yaml': 'resources:\n  - backup.yaml\n',
    'shared/backup.yaml': configMap('backup', { schedule: '@daily' }),
  });

  it('is not assessed when the PR changes a file it reads, though its own object stays', async () => {
    const repo = pullRequest(
      { 'shared/backup.yaml': configMap('backup', { schedule: '@hourly' }) },
      files(),
    );
    const result = await analyzeOnline(repo);
    expect(result.clusters[0]?.unassessed).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'db' },
        side: 'both',
        reason: 'render error',
      },
    ]);
    expect(result.verdict.level).not.toBe('none');
    expect(result.verdict.routine).toBe(false);
    expect(result.verdict.headline).toMatch(/^not assessed: 1 changed Kustomization/);
  });

  it('counts only the broken Kustomizations whose files the PR changes', async () => {
    const repo = pullRequest(
      { 'cron/cron.yaml': configMap('cron-${APP}', { token: '${MISSING}', at: 'noon' }) },
      files(),
    );
    const unassessed = (await analyzeOnline(repo)).clusters[0]?.unassessed ?? [];
    expect(unassessed.map((u) => u.producer.name)).toEqual(['cron']);
  });
});

describe('render errors the PR can fix', () => {
  it('still makes a real template error a danger the PR introduces', async () => {
    const result = await analyzeOnline(
      pullRequest({ 'charts/web/templates/broken.yaml': '{{ .Values.missing.field }}\n' }),
    );
    expect(rules(result)).toContain('render-error-introduced web');
    expect(result.verdict.level).toBe('danger');
    expect(result.clusters[0]?.unassessed).toEqual([]);
  });

  it('are not fixed by removing the producer that has them', async () => {
    const broken = {
      ...base(),
      'charts/web/templates/broken.yaml': '{{ .Values.missing.field }}\n',
    };
    const result = await analyzeOnline(pullRequest({ 'apps/web.yaml': null }, broken));
    expect(result.clusters[0]?.errorsFixed).toEqual([]);
    expect(renderMarkdown(result)).not.toContain('Render errors fixed');
  });
});
