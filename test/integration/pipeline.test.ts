/**
 * One analysis end to end: real git histories (branches, clones, merge-bases), real
 * kustomize through the builtin engine, the real diff, risk and report steps.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { classify, FluxlensError, RevisionError } from '../../src/errors.js';
import { defaultBranch, resolveRevisions } from '../../src/git/merge-base.js';
import { analyze as analyzeOutcome, type AnalysisRequest } from '../../src/analysis/index.js';
import { renderCheckRun } from '../../src/report/check-run.js';
import { renderHtml } from '../../src/report/html.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderText } from '../../src/report/text.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { testMachine, testRenderOptions, testRunner } from '../support/render.js';
import {
  bootstrap,
  makeRepo,
  type RepoFiles,
  type TestRepo,
  yamlStream,
  fluxKustomization,
} from '../support/repo.js';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));

const machine = testMachine;

/** The analysis result; the outcome's failOn and revisions are checked elsewhere. */
async function analyze(...args: Parameters<typeof analyzeOutcome>) {
  return (await analyzeOutcome(...args)).result;
}
const runner = testRunner();

const GIT_ENV = {
  PATH: process.env['PATH'] ?? '',
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: GIT_ENV }).trim();
}

function repo(files: RepoFiles): TestRepo {
  const made = makeRepo(files, { git: true });
  cleanups.push(() => made.remove());
  return made;
}

/** Deletes files from the work tree; the next commit records the deletion. */
function remove(r: TestRepo, ...paths: string[]): void {
  for (const path of paths) rmSync(join(r.dir, path), { recursive: true, force: true });
}

const yaml = yamlStream;

const ks = fluxKustomization;

function configMap(name: string, data: Record<string, string>): object {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'apps' }, data };
}

function claim(name: string): object {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'apps' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
}

/** Random secret material: no 8 characters of it can turn up in a report by chance. */
interface SecretValues {
  password: string;
  token: string;
  pemBody: string;
  /** A private key pasted outside any Secret (a Deployment's env). */
  strayPemBody: string;
}

function secretValues(): SecretValues {
  return {
    password: randomBytes(24).toString('base64url'),
    token: randomBytes(24).toString('base64url'),
    pemBody: randomBytes(96).toString('base64'),
    strayPemBody: randomBytes(96).toString('base64'),
  };
}

function pem(body: string): string {
  const lines = body.match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

function secret(values: SecretValues): object {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'app-secret', namespace: 'apps' },
    type: 'Opaque',
    data: {
      token: Buffer.from(values.token).toString('base64'),
      'tls.key': Buffer.from(pem(values.pemBody)).toString('base64'),
    },
    stringData: { password: values.password, 'ca.key': pem(values.pemBody) },
  };
}

/** A Deployment whose env carries a private key in the clear: redacted by its shape. */
function deployment(values: SecretValues): object {
  const env = [{ name: 'STARTUP_BLOB', value: pem(values.strayPemBody) }];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'app', namespace: 'apps' },
    spec: {
      selector: { matchLabels: { app: 'app' } },
      template: {
        metadata: { labels: { app: 'app' } },
        spec: { containers: [{ name: 'app', image: 'ghcr.io/example/app:1.0.0', env }] },
      },
    },
  };
}

/** Every string a report must not contain: each value, its base64 form, and the PEM bodies. */
function secretStrings(values: SecretValues): string[] {
  const raw = [values.password, values.token, values.pemBody, values.strayPemBody];
  const encoded = [values.token, pem(values.pemBody)].map((v) => Buffer.from(v).toString('base64'));
  return [...raw, ...encoded];
}

function leakedSubstring(output: string, secrets: readonly string[]): string | undefined {
  for (const s of secrets) {
    for (let i = 0; i + 8 <= s.length; i++) {
      const piece = s.slice(i, i + 8);
      if (output.includes(piece)) return piece;
    }
  }
  return undefined;
}

const baseSecrets = secretValues();
const headSecrets = secretValues();

/** The fleet at base: two Kustomizations that render and one (`legacy`) whose path is missing. */
function fleetBase(): RepoFiles {
  return {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': yaml(ks('apps', './apps')),
    'clusters/prod/infra.yaml': yaml(ks('infra', './infra')),
    'clusters/prod/legacy.yaml': yaml(ks('legacy', './legacy')),
    'apps/config.yaml': yaml(
      configMap('app-config', { color: 'red' }),
      configMap('old-config', { size: 'L' }),
    ),
    'apps/shared.yaml': yaml(configMap('shared-config', { owner: 'platform' })),
    'apps/data.yaml': yaml(claim('app-data')),
    'apps/secret.yaml': yaml(secret(baseSecrets)),
    'apps/deployment.yaml': yaml(deployment(baseSecrets)),
    'infra/namespace.yaml': yaml({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'apps' },
    }),
  };
}

/**
 * The PR: changes app-config, replaces old-config with new-config, moves shared-config
 * from apps to infra, deletes the claim, rotates the Secret and the private key pasted
 * into a Deployment, fixes `legacy`, breaks a new
 * Kustomization, and tries to switch off the rule that flags the deleted claim.
 */
function applyPullRequest(r: TestRepo): void {
  remove(r, 'apps/shared.yaml', 'apps/data.yaml');
  r.write({
    'apps/config.yaml': yaml(
      configMap('app-config', { color: 'blue' }),
      configMap('new-config', { size: 'M' }),
    ),
    'infra/shared.yaml': yaml(configMap('shared-config', { owner: 'platform' })),
    'apps/secret.yaml': yaml(secret(headSecrets)),
    'apps/deployment.yaml': yaml(deployment(headSecrets)),
    'legacy/config.yaml': yaml(configMap('legacy-config', { restored: 'true' })),
    'clusters/prod/broken.yaml': yaml(ks('broken', './nowhere')),
    '.fluxlens.yaml': 'rules:\n  stateful-data-deleted: off\nfailOn: never\n',
  });
}

interface Fleet {
  repo: TestRepo;
  base: string;
  head: string;
}

let fleetRepo: Fleet | undefined;

/** main at the base commit, `feature` one PR commit ahead (built once, read-only after). */
function fleet(): Fleet {
  if (fleetRepo) return fleetRepo;
  const r = repo(fleetBase());
  const base = r.commit('base');
  git(r.dir, 'checkout', '-q', '-b', 'feature');
  applyPullRequest(r);
  const head = r.commit('pull request');
  git(r.dir, 'checkout', '-q', 'main');
  fleetRepo = { repo: r, base, head };
  return fleetRepo;
}

function request(dir: string, extra: Partial<AnalysisRequest> = {}): AnalysisRequest {
  return {
    repoDir: dir,
    paths: ['clusters/prod'],
    engine: 'builtin',
    render: testRenderOptions,
    sources: [],
    ...extra,
  };
}

const fixedClock = { now: () => 0 };

/** Every analysis a test makes must also be valid JSON output by the schema. */
async function analyzeChecked(...args: Parameters<typeof analyze>): Promise<AnalysisResult> {
  const result = await analyze(...args);
  expectValidAnalysis(JSON.parse(renderJson(result)));
  return result;
}

async function analyzeFleet(extra: Partial<AnalysisRequest> = {}): Promise<AnalysisResult> {
  const { repo: r } = fleet();
  return analyzeChecked(request(r.dir, { base: 'main', head: 'feature', ...extra }), {
    runner,
    machine,
    ...fixedClock,
  });
}

const change = (result: AnalysisResult, id: string) => result.changes.find((c) => c.id === id);

async function usageError(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FluxlensError);
  expect(classify(err)).toBe('usage');
  return (err as FluxlensError).message;
}

describe('analyze', () => {
  it('pairs added, removed, changed and moved objects between the merge-base and the head', async () => {
    const { base, head } = fleet();
    const result = await analyzeFleet();
    expect(result.base).toEqual({ rev: 'main', sha: base });
    expect(result.head).toEqual({ rev: 'feature', sha: head });
    expect(change(result, '/ConfigMap/apps/app-config')).toMatchObject({
      status: 'changed',
      cluster: 'clusters/prod',
      producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
    });
    expect(change(result, '/ConfigMap/apps/old-config')?.status).toBe('removed');
    expect(change(result, '/ConfigMap/apps/new-config')?.status).toBe('added');
    expect(change(result, '/ConfigMap/apps/legacy-config')?.status).toBe('added');
    expect(change(result, '/PersistentVolumeClaim/apps/app-data')?.status).toBe('removed');
    expect(change(result, '/Secret/apps/app-secret')?.status).toBe('changed');
    expect(change(result, 'apps/Deployment/apps/app')?.status).toBe('changed');
    expect(
      change(result, 'kustomize.toolkit.fluxcd.io/Kustomization/flux-system/broken')?.status,
    ).toBe('added');
    expect(change(result, '/ConfigMap/apps/shared-config')).toMatchObject({
      status: 'moved',
      producer: { kind: 'Kustomization', name: 'infra' },
      previousProducer: { kind: 'Kustomization', name: 'apps' },
    });
    expect(result.clusters.map((c) => [c.name, c.path])).toEqual([
      ['clusters/prod', 'clusters/prod'],
    ]);
    const count = (status: string) => result.changes.filter((c) => c.status === status).length;
    expect(result.summary).toEqual({
      added: count('added'),
      removed: count('removed'),
      changed: count('changed'),
      moved: count('moved'),
      findings: result.findings.length,
    });
  });

  it('judges the PR by the policy at its base, not the one it brings', async () => {
    const result = await analyzeFleet();
    expect(result.findings).toContainEqual(
      expect.objectContaining({
        rule: 'stateful-data-deleted',
        level: 'danger',
        resource: { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'app-data' },
      }),
    );
    expect(result.verdict.level).toBe('danger');
  });

  it('sorts findings by level and changes by cluster, risk and id', async () => {
    const result = await analyzeFleet();
    const rank = { danger: 3, caution: 2, info: 1 } as const;
    const levels = result.findings.map((f) => rank[f.level]);
    expect(levels).toEqual([...levels].sort((a, b) => b - a));
    // The deleted claim carries the only danger finding, so it leads the changes.
    expect(result.changes[0]?.id).toBe('/PersistentVolumeClaim/apps/app-data');
    const quiet = result.changes.filter(
      (c) => !result.findings.some((f) => f.resource.kind === c.kind && f.resource.name === c.name),
    );
    const ids = quiet.map((c) => c.id);
    expect(ids).toEqual([...ids].sort());
  });

  it('lists render errors per side and marks the ones the PR introduces', async () => {
    const result = await analyzeFleet();
    expect(result.errors).toEqual([
      expect.objectContaining({
        cluster: 'clusters/prod',
        side: 'base',
        introduced: false,
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'legacy' },
      }),
      expect.objectContaining({
        cluster: 'clusters/prod',
        side: 'head',
        introduced: true,
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'broken' },
        file: 'clusters/prod/broken.yaml',
      }),
    ]);
    const [summary] = result.clusters;
    expect(summary?.errorsIntroduced.map((e) => e.producer.name)).toEqual(['broken']);
    expect(summary?.errorsFixed.map((e) => e.producer.name)).toEqual(['legacy']);
  });

  it('produces JSON that matches the AnalysisResult schema', async () => {
    const result = await analyzeFleet();
    expectValidAnalysis(JSON.parse(renderJson(result)));
  });

  it('gives byte-identical reports for the same inputs', async () => {
    const first = await analyzeFleet();
    const second = await analyzeFleet();
    expect(renderJson(second)).toBe(renderJson(first));
    expect(renderMarkdown(second)).toBe(renderMarkdown(first));
    expect(renderText(second, { color: false })).toBe(renderText(first, { color: false }));
    expect(renderHtml(second)).toBe(renderHtml(first));
  });

  it('differs only in timings when measured by a real clock', async () => {
    const { repo: r } = fleet();
    const measured = await analyzeChecked(request(r.dir, { base: 'main', head: 'feature' }), {
      runner,
      machine,
    });
    const fixed = await analyzeFleet();
    expect(Object.keys(measured.timings).sort()).toEqual(Object.keys(fixed.timings).sort());
    expect(Object.values(measured.timings).every((t) => t >= 0)).toBe(true);
    expect(renderJson({ ...measured, timings: fixed.timings })).toBe(renderJson(fixed));
  });

  it('never shows a Secret value, or any 8 characters of one, in any report', async () => {
    const result = await analyzeFleet();
    const secrets = [...secretStrings(baseSecrets), ...secretStrings(headSecrets)];
    const outputs: Record<string, string> = {
      json: renderJson(result),
      markdown: renderMarkdown(result),
      text: renderText(result, { color: false }),
      'coloured text': renderText(result, { color: true }),
      html: renderHtml(result),
      'check run': JSON.stringify(renderCheckRun(result, 'danger')),
    };
    for (const [format, output] of Object.entries(outputs)) {
      expect({ format, leaked: leakedSubstring(output, secrets) }).toEqual({
        format,
        leaked: undefined,
      });
    }
    // The Secret is still reported as changed, by key.
    expect(outputs['json']).toContain('app-secret');
  });

  it('analyses the whole repository as one cluster when no path is given', async () => {
    const result = await analyzeFleet({ paths: [] });
    expect(result.clusters.map((c) => [c.name, c.path])).toEqual([['.', '.']]);
    expect(change(result, '/ConfigMap/apps/app-config')?.cluster).toBe('.');
  });
});

describe('pointing findings at their source line', () => {
  // Each object sits second in its file, so its line cannot pass for the default of 1.
  const notes = (name: string) => configMap(name, { note: 'fills the first document' });
  const exposed = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'apps' },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
  };
  const storage = yaml(notes('storage-notes'), claim('data'));
  const web = yaml(notes('web-notes'), exposed);

  let analysis: Promise<AnalysisResult> | undefined;

  /** Base holds the claim; the PR deletes it and adds the exposed Service. */
  function analyzeOnce(): Promise<AnalysisResult> {
    analysis ??= (async () => {
      const r = repo({
        'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/apps.yaml': yaml(ks('apps', './apps')),
        'apps/storage.yaml': storage,
      });
      const base = r.commit('base');
      r.write({ 'apps/storage.yaml': yaml(notes('storage-notes')), 'apps/web.yaml': web });
      const head = r.commit('pull request');
      return analyzeChecked(request(r.dir, { base, head }), { runner, machine });
    })();
    return analysis;
  }

  /** The 1-based line where the document of `kind` starts: it opens with apiVersion, then kind. */
  function startLine(text: string, kind: string): number {
    return text.split('\n').indexOf(`kind: ${kind}`);
  }

  it.each([
    [
      'a removed claim at its line in the base file',
      { rule: 'stateful-data-deleted', name: 'data', file: 'apps/storage.yaml' },
      startLine(storage, 'PersistentVolumeClaim'),
    ],
    [
      'an added Service at its line in the head file',
      { rule: 'service-exposed', name: 'web', file: 'apps/web.yaml' },
      startLine(web, 'Service'),
    ],
  ])('annotates %s', async (_case, { rule, name, file }, line) => {
    expect(line).toBeGreaterThan(1);
    const result = await analyzeOnce();
    const finding = result.findings.find((f) => f.rule === rule && f.resource.name === name);
    expect(finding).toMatchObject({ file, line });
    expect(result.changes.find((c) => c.name === name)).toMatchObject({ file, line });
    const annotation = renderCheckRun(result, 'danger').annotations.find((a) =>
      a.title.includes(rule),
    );
    expect(annotation).toMatchObject({ path: file, start_line: line, end_line: line });
    expect(renderMarkdown(result)).toContain(`${file}:${line}`);
  });
});

describe('analyze with a policy', () => {
  /** Two clusters; the base's policy names them and keeps danger findings from failing. */
  function twoClusters(policy: string): Fleet {
    const r = repo({
      '.fluxlens.yaml': policy,
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yaml(ks('apps', './apps/prod')),
      'clusters/staging/flux-system.yaml': bootstrap('./clusters/staging'),
      'clusters/staging/apps.yaml': yaml(ks('apps', './apps/staging')),
      'apps/prod/config.yaml': yaml(configMap('app-config', { tier: 'prod' })),
      'apps/staging/config.yaml': yaml(configMap('app-config', { tier: 'staging' })),
    });
    const base = r.commit('base');
    r.write({
      'apps/prod/config.yaml': yaml(configMap('app-config', { tier: 'prod', size: 'XL' })),
      'apps/staging/config.yaml': yaml(configMap('app-config', { tier: 'staging', size: 'S' })),
    });
    const head = r.commit('pull request');
    return { repo: r, base, head };
  }

  const POLICY = `clusters:
  - name: staging
    path: clusters/staging
  - name: production
    path: ./clusters/prod/
`;

  it('renders the clusters the policy names, under their names', async () => {
    const { repo: r, base, head } = twoClusters(POLICY);
    const result = await analyzeChecked(request(r.dir, { base, head, paths: [] }), {
      runner,
      machine,
    });
    expect(result.clusters.map((c) => [c.name, c.path, c.changed])).toEqual([
      ['production', 'clusters/prod', 1],
      ['staging', 'clusters/staging', 1],
    ]);
    expect(result.changes.map((c) => [c.cluster, c.id])).toEqual([
      ['production', '/ConfigMap/apps/app-config'],
      ['staging', '/ConfigMap/apps/app-config'],
    ]);
  });

  it('narrows the policy clusters to the paths asked for', async () => {
    const { repo: r, base, head } = twoClusters(POLICY);
    const result = await analyzeChecked(request(r.dir, { base, head, paths: ['clusters/prod'] }), {
      runner,
      machine,
    });
    expect(result.clusters.map((c) => c.name)).toEqual(['production']);
    const message = await usageError(
      analyze(request(r.dir, { base, head, paths: ['clusters/dev'] }), { runner, machine }),
    );
    expect(message).toBe(
      "path 'clusters/dev' is not a cluster in .fluxlens.yaml (staging (clusters/staging), production (clusters/prod))",
    );
  });

  it('fails with the field a malformed base policy gets wrong', async () => {
    const { repo: r, base, head } = twoClusters('clusters:\n  - name: prod\n');
    const message = await usageError(
      analyze(request(r.dir, { base, head, paths: [] }), { runner, machine }),
    );
    expect(message).toBe('.fluxlens.yaml: clusters.0.path: required');
  });

  it('ignores a malformed policy that only the head brings', async () => {
    const { repo: r, base } = twoClusters('');
    r.write({ '.fluxlens.yaml': 'clusters: [{name: prod}]\nlevels: {}\n' });
    const head = r.commit('break the policy');
    const result = await analyzeChecked(request(r.dir, { base, head, paths: ['clusters/prod'] }), {
      runner,
      machine,
    });
    expect(result.clusters.map((c) => c.name)).toEqual(['clusters/prod']);
  });

  it('renders a cluster the PR adds against an empty base', async () => {
    const { repo: r, base } = twoClusters('');
    r.write({
      'clusters/dev/flux-system.yaml': bootstrap('./clusters/dev'),
      'clusters/dev/config.yaml': yaml(configMap('dev-config', { tier: 'dev' })),
    });
    const head = r.commit('add dev');
    const result = await analyzeChecked(request(r.dir, { base, head, paths: ['clusters/dev'] }), {
      runner,
      machine,
    });
    expect(result.changes.map((c) => [c.status, c.id])).toContainEqual([
      'added',
      '/ConfigMap/apps/dev-config',
    ]);
    expect(result.changes.every((c) => c.status === 'added')).toBe(true);
  });
});

describe('choosing the base', () => {
  /**
   * An upstream with main, cloned; the clone's `feature` branches off main, then main moves
   * on upstream (fetched) with a change the PR must not be credited with.
   */
  function clonedFleet(): { clone: string; branchPoint: string; upstreamTip: string } {
    const upstream = repo({
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/config.yaml': yaml(configMap('shared', { v: '1' })),
    });
    const branchPoint = upstream.commit('base');
    const clone = mkdtempSync(join(tmpdir(), 'fluxlens-clone-'));
    cleanups.push(() => rmSync(clone, { recursive: true, force: true }));
    execFileSync('git', ['clone', '-q', upstream.dir, clone], { env: GIT_ENV });
    upstream.write({ 'clusters/prod/later.yaml': yaml(configMap('later-on-main', { v: '1' })) });
    const upstreamTip = upstream.commit('main moves on');
    git(clone, 'fetch', '-q', 'origin');
    git(clone, 'checkout', '-q', '-b', 'feature');
    git(clone, 'rm', '-q', 'clusters/prod/config.yaml');
    git(clone, 'commit', '-q', '-m', 'remove shared');
    return { clone, branchPoint, upstreamTip };
  }

  it('defaults to the merge-base with the upstream default branch from origin/HEAD', async () => {
    const { clone, branchPoint } = clonedFleet();
    const result = await analyzeChecked(request(clone, { paths: [] }), { runner, machine });
    expect(result.base).toEqual({ rev: 'origin/main', sha: branchPoint });
    expect(result.head.rev).toBe('HEAD');
    expect(result.changes.map((c) => [c.status, c.name])).toEqual([['removed', 'shared']]);
    await expect(resolveRevisions(runner, clone, {})).resolves.toMatchObject({
      baseSource: 'origin/HEAD',
    });
  });

  it('falls back to origin/main, then local main or master, and says so', async () => {
    const { clone, branchPoint } = clonedFleet();
    git(clone, 'remote', 'set-head', 'origin', '--delete');
    await expect(defaultBranch(runner, clone)).resolves.toEqual({
      rev: 'origin/main',
      ref: 'refs/remotes/origin/main',
      source: 'fallback',
    });
    await expect(resolveRevisions(runner, clone, {})).resolves.toMatchObject({
      base: { rev: 'origin/main', sha: branchPoint },
      baseSource: 'fallback',
    });
    git(clone, 'remote', 'remove', 'origin');
    await expect(defaultBranch(runner, clone)).resolves.toMatchObject({ rev: 'main' });
    git(clone, 'branch', '-q', '-m', 'main', 'master');
    await expect(defaultBranch(runner, clone)).resolves.toMatchObject({ rev: 'master' });
    git(clone, 'branch', '-q', '-m', 'master', 'trunk');
    const err = await defaultBranch(runner, clone).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RevisionError);
    expect(err).toMatchObject({ code: 'no-default-branch', reason: 'no-default-branch' });
  });

  it('uses the merge-base with --base, not its tip', async () => {
    const { clone, branchPoint, upstreamTip } = clonedFleet();
    const result = await analyzeChecked(request(clone, { base: 'origin/main', paths: [] }), {
      runner,
      machine,
    });
    expect(result.base).toEqual({ rev: 'origin/main', sha: branchPoint });
    expect(result.base.sha).not.toBe(upstreamTip);
    expect(result.changes.some((c) => c.name === 'later-on-main')).toBe(false);
  });

  it('rejects a revision git cannot resolve', async () => {
    const { repo: r } = fleet();
    expect(
      await usageError(analyze(request(r.dir, { base: 'no-such-branch' }), { runner, machine })),
    ).toContain("cannot resolve revision 'no-such-branch'");
    expect(
      await usageError(analyze(request(r.dir, { head: 'no-such-head' }), { runner, machine })),
    ).toContain("cannot resolve revision 'no-such-head'");
  });

  it('rejects a base that shares no history with the head', async () => {
    const r = repo({ 'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod') });
    r.commit('main');
    git(r.dir, 'checkout', '-q', '--orphan', 'unrelated');
    r.commit('unrelated history');
    const message = await usageError(
      analyze(request(r.dir, { base: 'main', head: 'unrelated' }), { runner, machine }),
    );
    expect(message).toContain('no common ancestor');
  });
});
