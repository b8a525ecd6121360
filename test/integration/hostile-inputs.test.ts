/**
 * A hostile-input corpus: repositories and names written the way an attacker who can open
 * a PR would write them, against the real engines (kustomize, flux-local) and every report
 * format. One describe per attack of issue 11.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RENDER_SETTINGS, type RenderSettings } from '../../src/render/index.js';
import { FluxLocalEngine } from '../../src/render/flux-local/index.js';
import type { RenderedCluster, RenderError } from '../../src/model/render.js';
import type { AnalysisResult } from '../../src/model/analysis.js';
import {
  renderCheckRun,
  renderHtml,
  renderJson,
  renderMarkdown,
  renderText,
} from '../../src/report/index.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  type RepoFiles,
  type TestRepo,
} from '../support/repo.js';
import { builtinEngine, testRunner } from '../support/render.js';
import { stringify } from 'yaml';
import { analysis, change, clusterSummary, finding } from '../unit/report/analysis-builders.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const settings: RenderSettings = {
  ...DEFAULT_RENDER_SETTINGS,
  helm: { ...DEFAULT_RENDER_SETTINGS.helm, enabled: false },
};

type Engine = 'builtin' | 'flux-local';

async function render(
  engine: Engine,
  files: RepoFiles,
  overrides: Partial<RenderSettings> = {},
): Promise<RenderedCluster> {
  const repo = makeRepo(files);
  repos.push(repo);
  const request = { repoDir: repo.dir, entry: 'clusters/prod', sources: [] };
  if (engine === 'builtin') return builtinEngine({ ...settings, ...overrides }).render(request);
  return new FluxLocalEngine({
    runner: testRunner(),
    settings: { ...settings, ...overrides },
  }).render(request);
}

function errorsOf(cluster: RenderedCluster, pattern: RegExp): RenderError[] {
  return cluster.errors.filter((e) => pattern.test(e.message));
}

function refusedBases(cluster: RenderedCluster): RenderError[] {
  return cluster.errors.filter((e) => e.code === 'remote-base-refused');
}

/** A port nothing listens on: a fetch that did start fails at once, never reaching the internet. */
const REMOTE_BASE = 'https://127.0.0.1:9/example/base?ref=v1';

describe('remote kustomize bases (point 4)', () => {
  const files: RepoFiles = {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': stringify(fluxKustomization('apps', './apps')),
    'clusters/prod/infra.yaml': stringify(fluxKustomization('infra', './infra')),
    'apps/kustomization.yaml': stringify({ resources: ['cm.yaml', REMOTE_BASE] }),
    'apps/cm.yaml': stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app', namespace: 'apps' },
      data: { a: '1' },
    }),
    'infra/cm.yaml': stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'infra', namespace: 'infra' },
      data: { a: '1' },
    }),
  };

  it('refuses a remote base under flux-local with the builtin engine error, before fetching', async () => {
    const builtin = refusedBases(await render('builtin', files));
    const fluxLocal = await render('flux-local', files);
    expect(builtin).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
        file: 'apps/kustomization.yaml',
        message: `remote resource '${REMOTE_BASE}' is disabled (enable remote bases to allow it)`,
        code: 'remote-base-refused',
      },
    ]);
    expect(refusedBases(fluxLocal)).toEqual(builtin);
    expect(fluxLocal.objects).toEqual([]);
    const infra = fluxLocal.producers.find((p) => p.name === 'infra');
    expect(infra?.skipped).toMatch(/flux-local was not run.*flux-system\/apps.*remote base/);
  });

  it('lets flux-local fetch the same base when remote bases are allowed', async () => {
    const cluster = await render('flux-local', files, { allowRemoteBases: true });
    // Without the check, this is what any run did: flux-local (kustomize) fetched the base.
    expect(refusedBases(cluster)).toEqual([]);
    expect(errorsOf(cluster, /127\.0\.0\.1:9/).map((e) => e.producer.name)).toEqual(['apps']);
  });

  it('refuses a remote base in a Kustomization that a parent outside the entry applies', async () => {
    const cluster = await render('flux-local', {
      ...files,
      'clusters/prod/apps.yaml': stringify(fluxKustomization('apps', './platform')),
      'platform/nested.yaml': stringify(fluxKustomization('nested', './apps')),
    });
    expect(refusedBases(cluster).map((e) => e.producer.name)).toEqual(['nested']);
  });
});

function dependent(name: string, dependsOn: string[]): string {
  const ks = fluxKustomization(name, `./${name}`);
  (ks['spec'] as Record<string, unknown>)['dependsOn'] = dependsOn.map((n) => ({ name: n }));
  return stringify(ks);
}

const configMap = (name: string): string =>
  stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'apps' },
    data: { a: '1' },
  });

describe('dependsOn cycles (point 8)', () => {
  const files: RepoFiles = {
    'clusters/prod/a.yaml': dependent('a', ['b']),
    'clusters/prod/b.yaml': dependent('b', ['a']),
    'clusters/prod/c.yaml': dependent('c', ['a', 'not-there']),
    'clusters/prod/d.yaml': dependent('d', ['not-there']),
    'a/cm.yaml': configMap('from-a'),
    'b/cm.yaml': configMap('from-b'),
    'c/cm.yaml': configMap('from-c'),
    'd/cm.yaml': configMap('from-d'),
  };

  it.each<Engine>(['builtin', 'flux-local'])(
    'reports each Kustomization of a dependsOn cycle, and no missing dependency, with %s',
    async (engine) => {
      const cluster = await render(engine, files);
      expect(errorsOf(cluster, /dependsOn cycle/)).toEqual([
        {
          producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'a' },
          file: 'clusters/prod/a.yaml',
          message: 'Kustomization dependsOn cycle: flux-system/a -> flux-system/b -> flux-system/a',
        },
        {
          producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'b' },
          file: 'clusters/prod/b.yaml',
          message: 'Kustomization dependsOn cycle: flux-system/b -> flux-system/a -> flux-system/b',
        },
      ]);
    },
  );

  it('reports a Kustomization that depends on itself', async () => {
    const cluster = await render('builtin', {
      ...files,
      'clusters/prod/d.yaml': dependent('d', ['d']),
    });
    expect(errorsOf(cluster, /dependsOn cycle/).map((e) => e.message)).toContain(
      'Kustomization dependsOn cycle: flux-system/d -> flux-system/d',
    );
  });
});

/** Terminal escapes, bell, a C1 CSI, and bidi overrides and isolates. */
const HOSTILE = '\u001b]0;owned\u0007\u001b[2J\u009b31m\u202egnp.exe\u202c\u2066x\u2069';
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function hostileResult(): AnalysisResult {
  const producer = {
    kind: 'Kustomization' as const,
    namespace: 'flux-system',
    name: `apps${HOSTILE}`,
  };
  const base = analysis({ findings: [finding({ level: 'danger', message: 'x' })] });
  return analysis({
    verdict: { ...base.verdict, headline: `Deletes web${HOSTILE}` },
    changes: [
      change({
        name: `web${HOSTILE}`,
        producer,
        file: `apps/web${HOSTILE}.yaml`,
        diff: `@@ -1 +1 @@\n-name: old${HOSTILE}\n+name: web${HOSTILE}\n`,
      }),
    ],
    findings: [
      finding({
        level: 'danger',
        message: `deletes ${HOSTILE}`,
        rule: `rule${HOSTILE}`,
        resource: { kind: 'Deployment', namespace: 'apps', name: `web${HOSTILE}` },
        file: `apps/web${HOSTILE}.yaml`,
        line: 3,
        producer,
      }),
    ],
    clusters: [clusterSummary({ name: `prod${HOSTILE}`, added: 0, changed: 1 })],
  });
}

describe('control characters in names (point 10)', () => {
  const result = hostileResult();
  const checkRun = renderCheckRun(result, 'danger');
  const formats: [string, string][] = [
    ['markdown', renderMarkdown(result)],
    ['text', renderText(result, { color: false })],
    ['html', renderHtml(result)],
    ['check-run title', checkRun.title],
    ['check-run summary', checkRun.summary],
    ['check-run text', checkRun.text],
    ['check-run annotations', JSON.stringify(checkRun.annotations)],
    [
      'check-run annotation fields',
      checkRun.annotations.flatMap((a) => [a.path, a.title, a.message]).join('\n'),
    ],
  ];

  it.each(formats)('shows no raw control or bidi character in the %s', (_, output) => {
    expect(output).toContain('\ufffd');
    expect(output).not.toMatch(UNSAFE);
  });

  it('keeps the names whole in JSON, escaped so that printing it is safe', () => {
    const json = renderJson(result);
    expect(json).not.toMatch(UNSAFE);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(result)));
    expect(json).toContain('\\u009b31m\\u202egnp.exe');
  });
});
