/**
 * A Kustomization defined in a file that another Kustomization also applies (here through
 * a kustomization.yaml that lists it from another folder, where fluxlens cannot see the
 * parent in advance) may render on its own before that parent, or beside it. Whichever
 * finishes first, the parent's version is the one in the cluster: the copy from the file,
 * every producer it defined and every object it rendered go, and the cluster is the same
 * in every order.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { objectMeta, type RenderedCluster } from '../../src/model/render.js';
import { BuiltinEngine } from '../../src/render/builtin/engine.js';
import { DEFAULT_RENDER_SETTINGS, type RenderSettings } from '../../src/render/index.js';
import { ToolRunner } from '../../src/tool-runner.js';
import { builtinEngine, testHelmSettings } from '../support/render.js';
import { makeRepo, yamlStream as yaml, type TestRepo } from '../support/repo.js';
import { wrappedKustomizeTools } from '../support/tools.js';

const cleanup: Array<() => void> = [];
afterAll(() => cleanup.reverse().forEach((step) => step()));

const source = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };

function ks(name: string, namespace: string | undefined, spec: Record<string, unknown>): object {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: namespace === undefined ? { name } : { name, namespace },
    spec: { interval: '10m', sourceRef: source, ...spec },
  };
}

function configMap(name: string, data: Record<string, string>, namespace?: string): object {
  const metadata = namespace === undefined ? { name } : { name, namespace };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data };
}

/**
 * `apps` applies overlay/, which lists base/child.yaml: the `child` Kustomization, written
 * without a namespace (so `default` when read from its file, flux-system when `apps`
 * applies it). `child` applies `grand` and the ConfigMap `vars`; `reader`, in `default`,
 * substitutes from an optional `vars` there, which only the file's copy would give it.
 */
function supersededFleet(): TestRepo {
  const repo = makeRepo({
    'clusters/apps.yaml': yaml(ks('apps', 'flux-system', { path: './overlay' })),
    'clusters/reader.yaml': yaml(
      ks('reader', 'default', {
        path: './reader',
        postBuild: {
          substitute: { size: 'M' },
          substituteFrom: [{ kind: 'ConfigMap', name: 'vars', optional: true }],
        },
      }),
    ),
    'overlay/kustomization.yaml': yaml({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: ['../base/child.yaml'],
    }),
    'base/child.yaml': yaml(ks('child', undefined, { path: './child' })),
    'child/grand.yaml': yaml(ks('grand', undefined, { path: './grand' })),
    'child/vars.yaml': yaml(configMap('vars', { color: 'red' })),
    'grand/cm.yaml': yaml(configMap('deep', { depth: '3' }, 'apps')),
    'reader/cm.yaml': yaml(configMap('painted', { color: '${color:=none}' }, 'apps')),
  });
  cleanup.push(() => repo.remove());
  return repo;
}

/**
 * A tools folder whose `kustomize build` of a folder named `held` waits until the file
 * `release` exists; every other build and tool is the real one. It holds one producer's
 * render open while the others of its round finish.
 */
function holdingTools(held: string): { bin: string; release: () => void } {
  const tools = wrappedKustomizeTools(
    (kustomize, dir) => `#!/bin/sh
if [ "$1" = build ]; then
  case "$2" in
    */${held}) while [ ! -e '${join(dir, 'release')}' ]; do sleep 0.05; done ;;
  esac
fi
exec '${kustomize}' "$@"
`,
  );
  cleanup.push(tools.remove);
  return { bin: tools.bin, release: () => writeFileSync(join(tools.dir, 'release'), '') };
}

/** Renders with concurrency 1: producers of a round in the order of their files. */
async function renderInFileOrder(
  repo: TestRepo,
  settings: Partial<RenderSettings> = {},
): Promise<RenderedCluster> {
  const engine = builtinEngine({ ...settings, concurrency: 1 });
  return engine.render({ repoDir: repo.dir, entry: '.', sources: [] });
}

/**
 * Renders with concurrency 2, the build of the folder `held` waiting until another
 * producer of its round has rendered.
 */
async function renderHolding(repo: TestRepo, held: string): Promise<RenderedCluster> {
  const tools = holdingTools(held);
  const config = loadConfig();
  const runner = new ToolRunner({
    toolsBinDir: tools.bin,
    path: config.path,
    baseEnv: config.toolEnv,
  });
  const engine = new BuiltinEngine({
    runner,
    settings: {
      ...DEFAULT_RENDER_SETTINGS,
      helm: testHelmSettings,
      // Every build through the tools folder, none through kustomize-server.
      kustomizeServer: false,
      concurrency: 2,
    },
  });
  return engine.render({ repoDir: repo.dir, entry: '.', sources: [] }, () => tools.release());
}

/** The cluster as the review compares it: producers, objects, errors. */
function rendered(cluster: RenderedCluster): Omit<RenderedCluster, 'tools' | 'cache'> {
  return { producers: cluster.producers, objects: cluster.objects, errors: cluster.errors };
}

function producerNames(cluster: RenderedCluster): string[] {
  return cluster.producers.map((p) => `${p.kind}/${p.namespace}/${p.name}`);
}

function objectNames(cluster: RenderedCluster): string[] {
  return cluster.objects.map((o) => {
    const meta = objectMeta(o.manifest);
    return `${meta.kind}/${meta.name} by ${o.producer.namespace}/${o.producer.name}`;
  });
}

function expectParentsVersion(cluster: RenderedCluster): void {
  expect(cluster.errors).toEqual([]);
  expect(producerNames(cluster)).toEqual([
    'Kustomization/default/reader',
    'Kustomization/flux-system/apps',
    'Kustomization/flux-system/child',
    'Kustomization/flux-system/grand',
  ]);
  expect(objectNames(cluster)).toEqual([
    'ConfigMap/painted by default/reader',
    'Kustomization/child by flux-system/apps',
    'ConfigMap/vars by flux-system/child',
    'Kustomization/grand by flux-system/child',
    'ConfigMap/deep by flux-system/grand',
  ]);
  const child = cluster.producers.find((p) => p.name === 'child');
  expect(child?.definedIn).toEqual({
    parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
  });
  // Only the file's copy of `child` ever put `vars` in `default`.
  const painted = cluster.objects.find((o) => objectMeta(o.manifest).name === 'painted');
  expect(painted?.manifest['data']).toEqual({ color: 'none' });
}

describe('a file-defined Kustomization that its parent also applies', () => {
  it('goes with every producer and object it defined when it rendered before its parent', async () => {
    // base/child.yaml sorts before clusters/apps.yaml: the file's copy renders first.
    const cluster = await renderInFileOrder(supersededFleet());
    expectParentsVersion(cluster);
  });

  it('is left out when its render finishes after its parent applied it', async () => {
    const cluster = await renderHolding(supersededFleet(), 'child');
    expectParentsVersion(cluster);
  });

  it('gives the same cluster, object for object, whichever of the two renders first', async () => {
    const childFirst = await renderHolding(supersededFleet(), 'overlay');
    const parentFirst = await renderHolding(supersededFleet(), 'child');
    // As the held renders build: each build its own kustomize (its key names the tool).
    const inFileOrder = await renderInFileOrder(supersededFleet(), { kustomizeServer: false });
    expectParentsVersion(childFirst);
    expect(rendered(parentFirst)).toEqual(rendered(childFirst));
    expect(rendered(inFileOrder)).toEqual(rendered(childFirst));
  });
});
