/**
 * The PR a bot opens most: one chart moves to a new version in every app's OCIRepository
 * (the app-template layout), end to end with real git, helm and a real OCI registry. A
 * minor bump is routine and one row in the chart table, not a wide change; a major bump is
 * a chart-major-bump on each OCIRepository.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { RenderOptions } from '../../src/render/index.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { fixtureCharts, packageChart, pushChart } from '../support/chart-repo.js';
import { startOciRegistry, type OciRegistry } from '../support/oci-registry.js';
import { analyzeBranches, testMachine, testRunner, withoutTimings } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream as yaml,
  type TestRepo,
} from '../support/repo.js';

const APPS = Array.from({ length: 10 }, (_, i) => `app-${i}`);

let registry: OciRegistry;
let repo: TestRepo;
let work: string;
let minor: AnalysisResult;
let major: AnalysisResult;

function appFiles(url: string, tag: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const app of APPS) {
    files[`apps/${app}/release.yaml`] = yaml(
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'OCIRepository',
        metadata: { name: 'hello', namespace: app },
        spec: { interval: '15m', url, insecure: true, ref: { tag } },
      },
      {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        metadata: { name: app, namespace: app },
        spec: { interval: '1h', chartRef: { kind: 'OCIRepository', name: 'hello' } },
      },
    );
  }
  return files;
}

beforeAll(async () => {
  registry = await startOciRegistry();
  work = mkdtempSync(join(tmpdir(), 'fluxlens-chart-bumps-'));
  for (const version of ['1.0.0', '1.1.0', '2.0.0']) {
    const archive = await packageChart(testRunner(), join(fixtureCharts, 'hello'), work, version);
    await pushChart(testRunner(), archive, `${registry.url}/charts`);
  }
  const url = `${registry.url}/charts/hello`;
  repo = makeRepo(
    {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yaml(...APPS.map((a) => fluxKustomization(a, `./apps/${a}`))),
      ...appFiles(url, '1.0.0'),
    },
    { git: true },
  );
  repo.commit('base');
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo.dir, ...args], {
      env: { PATH: process.env['PATH'] ?? '', HOME: repo.dir, GIT_CONFIG_NOSYSTEM: '1' },
    });
  for (const [branch, tag] of [
    ['minor', '1.1.0'],
    ['major', '2.0.0'],
  ] as const) {
    git('checkout', '-q', '-b', branch, 'main');
    repo.write(appFiles(url, tag));
    repo.commit(`hello ${tag}`);
  }
  git('checkout', '-q', '-b', 'one-app', 'main');
  repo.write({
    'apps/app-3/release.yaml': appFiles(url, '1.1.0')['apps/app-3/release.yaml'] ?? '',
  });
  repo.commit('hello 1.1.0 in app-3');
  const online = { render: RenderOptions.parse({ offline: false }) };
  minor = await analyzeBranches(repo.dir, 'main', 'minor', online);
  major = await analyzeBranches(repo.dir, 'main', 'major', online);
}, 240_000);

afterAll(async () => {
  repo?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
  await registry?.stop();
});

describe('a chart bump through OCIRepositories', () => {
  it('renders every release on both sides', () => {
    expect(minor.errors).toEqual([]);
    expect(major.errors).toEqual([]);
    expect(minor.changes.map((c) => c.kind)).toEqual(APPS.map(() => 'OCIRepository'));
  });

  it('calls a minor bump in ten apps routine, without a wide-change caution', () => {
    expect(minor.verdict).toMatchObject({ level: 'none', routine: true });
    expect(minor.verdict.headline).toMatch(/^Routine: /);
    expect(minor.findings.map((f) => f.rule)).not.toContain('wide-change');
  });

  it('lists the bump once, with every release it reaches', () => {
    expect(minor.clusters[0]?.charts).toEqual([
      {
        chart: 'hello',
        source: `${registry.url}/charts/hello`,
        from: '1.0.0',
        to: '1.1.0',
        producers: APPS.map((a) => `HelmRelease/${a}/${a}`),
      },
    ]);
    expectValidAnalysis(JSON.parse(renderJson(minor)));
    const markdown = renderMarkdown(minor);
    expect(markdown).toContain('#### Chart changes');
    expect(markdown).toContain('| `1.0.0` | `1.1.0` | 10 | `HelmRelease/app-0/app-0`,');
  });

  it("takes the releases a PR leaves alone from the base's keys, without their charts", async () => {
    const cache = mkdtempSync(join(tmpdir(), 'fluxlens-chart-bumps-cache-'));
    try {
      const machine = { ...testMachine, renderCache: { dir: cache, maxBytes: 64 * 1024 * 1024 } };
      const online = { render: RenderOptions.parse({ offline: false }), machine };
      const changedOnly = await analyzeBranches(repo.dir, 'main', 'one-app', online);
      // flux-system and nine apps' Kustomizations, and nine releases whose source is as it was.
      expect(changedOnly.timings?.['builds-carried']).toBe(19);
      const full = await analyzeBranches(repo.dir, 'main', 'one-app', {
        render: RenderOptions.parse({ offline: false }),
      });
      expect(withoutTimings(changedOnly)).toEqual(withoutTimings(full));
      expect(changedOnly.clusters[0]?.charts).toEqual([
        expect.objectContaining({
          from: '1.0.0',
          to: '1.1.0',
          producers: ['HelmRelease/app-3/app-3'],
        }),
      ]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('flags a major bump on each OCIRepository, naming its release', () => {
    const bumps = major.findings.filter((f) => f.rule === 'chart-major-bump');
    expect(
      bumps.map((f) => `${f.resource.kind}/${f.resource.namespace}/${f.resource.name}`),
    ).toEqual(APPS.map((a) => `OCIRepository/${a}/hello`));
    expect(bumps[0]).toMatchObject({
      level: 'caution',
      file: 'apps/app-0/release.yaml',
      message: expect.stringContaining(
        'moves chart hello from 1.0.0 to 2.0.0 for HelmRelease/app-0/app-0',
      ),
    });
    expect(major.verdict.routine).toBe(false);
    expect(major.findings.map((f) => f.rule)).not.toContain('wide-change');
  });
});
