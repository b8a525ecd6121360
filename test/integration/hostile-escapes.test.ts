/**
 * Hostile inputs, issue 11 point 3: a repository that tries to make the renderer read
 * files outside it (a symlinked file, listed or picked up by a generated kustomization,
 * a spec.path or a kustomize resource climbing out with `..`, a symlinked chart folder).
 * Both engines give the same guarantee: nothing outside is rendered, and the Kustomization
 * that asked gets an error. flux-local runs on a copy made like a Flux artifact.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RENDER_SETTINGS, type RenderSettings } from '../../src/render/index.js';
import { FluxLocalEngine } from '../../src/render/flux-local/index.js';
import type { RenderedCluster } from '../../src/model/render.js';
import { builtinEngine, testRunner } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream,
  type RepoFiles,
  type TestRepo,
  repositoryChartRelease,
} from '../support/repo.js';

type Engine = 'builtin' | 'flux-local';
const ENGINES: Engine[] = ['builtin', 'flux-local'];

const MARKER = 'outside-the-repository';
let outside: string;
const repos: TestRepo[] = [];

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'fluxlens-outside-'));
  const configMap = yamlStream({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'stolen', namespace: 'default' },
    data: { content: MARKER },
  });
  writeFileSync(join(outside, 'cm.yaml'), configMap);
  writeFileSync(join(outside, 'kustomization.yaml'), 'resources: [cm.yaml]\n');
  mkdirSync(join(outside, 'chart/templates'), { recursive: true });
  writeFileSync(
    join(outside, 'chart/Chart.yaml'),
    'apiVersion: v2\nname: stolen\nversion: 1.0.0\n',
  );
  writeFileSync(join(outside, 'chart/templates/cm.yaml'), configMap);
});
afterAll(() => {
  repos.forEach((r) => r.remove());
  rmSync(outside, { recursive: true, force: true });
});

async function render(engine: Engine, files: RepoFiles, helm = false): Promise<RenderedCluster> {
  const repo = makeRepo({
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    ...files,
  });
  repos.push(repo);
  const settings: RenderSettings = {
    ...DEFAULT_RENDER_SETTINGS,
    helm: { ...DEFAULT_RENDER_SETTINGS.helm, enabled: helm, offline: true },
  };
  const request = { repoDir: repo.dir, entry: 'clusters/prod', sources: [] };
  if (engine === 'builtin') return builtinEngine(settings).render(request);
  return new FluxLocalEngine({ runner: testRunner(), settings }).render(request);
}

const app = (path: string) => ({
  'clusters/prod/app.yaml': yamlStream(fluxKustomization('app', path)),
});
const leaked = (cluster: RenderedCluster) => JSON.stringify(cluster.objects).includes(MARKER);
const errorOfApp = (cluster: RenderedCluster) =>
  cluster.errors.find((e) => e.producer.name === 'app')?.message;

describe.each(ENGINES)('the %s engine reads nothing outside the repository', (engine) => {
  it('leaves a symlinked file out of a generated kustomization', async () => {
    const cluster = await render(engine, {
      ...app('./apps/web'),
      'apps/web/own.yaml': yamlStream({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'own', namespace: 'default' },
      }),
      'apps/web/linked.yaml': { symlink: join(outside, 'cm.yaml') },
    });
    expect(leaked(cluster)).toBe(false);
    expect(cluster.objects.map((o) => o.manifest['metadata'])).toContainEqual({
      name: 'own',
      namespace: 'default',
      labels: expect.any(Object) as unknown,
    });
  });

  it('fails the Kustomization whose kustomization.yaml lists a symlinked file', async () => {
    const cluster = await render(engine, {
      ...app('./apps/web'),
      'apps/web/kustomization.yaml': 'resources: [linked.yaml]\n',
      'apps/web/linked.yaml': { symlink: join(outside, 'cm.yaml') },
    });
    expect(leaked(cluster)).toBe(false);
    expect(errorOfApp(cluster)).toBeDefined();
  });

  it("fails a spec.path that climbs out with '..'", async () => {
    const cluster = await render(engine, app('../../../../../../../..' + outside));
    expect(leaked(cluster)).toBe(false);
    expect(errorOfApp(cluster)).toMatch(/leaves the source root/);
  });

  it("fails a kustomize resource that climbs out with '..'", async () => {
    const cluster = await render(engine, {
      ...app('./apps/web'),
      'apps/web/kustomization.yaml': `resources: ['../../../../../../../../..${outside}']\n`,
    });
    expect(leaked(cluster)).toBe(false);
    expect(errorOfApp(cluster)).toMatch(/leaves the source root/);
  });

  it('renders no chart from a symlinked chart folder', async () => {
    const cluster = await render(
      engine,
      {
        ...app('./apps/web'),
        'apps/web/release.yaml': yamlStream(
          repositoryChartRelease('stolen', 'default', './charts/stolen'),
        ),
        'charts/stolen': { symlink: join(outside, 'chart') },
      },
      true,
    );
    expect(leaked(cluster)).toBe(false);
    expect(cluster.errors.find((e) => e.producer.name === 'stolen')).toBeDefined();
  });
});
