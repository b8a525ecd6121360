/**
 * helm template and helm-controller's post-render steps with real helm and kustomize:
 * which objects a HelmRelease puts in the cluster (crds/, hooks, tests, capabilities,
 * install or upgrade), how render failures read, and what the post-renderer chain,
 * commonMetadata, origin labels and namespace placement do to them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { HelmRelease } from '../../src/render/helm/helm-release.js';
import {
  ORIGIN_NAME_LABEL,
  ORIGIN_NAMESPACE_LABEL,
  PostRenderError,
  postRender,
} from '../../src/render/helm/post-render.js';
import {
  chartCrdsMode,
  helmTemplate,
  TemplateError,
  type ChartRender,
  type TemplateOptions,
} from '../../src/render/helm/template.js';
import { objectMeta, type Manifest } from '../../src/model/render.js';
import { projectRoot } from '../support/paths.js';
import { testRunner } from '../support/render.js';

const CHART = join(projectRoot, 'test', 'fixtures', 'charts', 'template-basic');
const KUSTOMIZE = { timeoutMs: 60_000, maxOutputBytes: 16 * 1024 * 1024 };
const runner = testRunner();

const scratchDirs: string[] = [];
afterAll(() => scratchDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-helm-'));
  scratchDirs.push(dir);
  return dir;
}

function options(overrides: Partial<TemplateOptions> = {}): TemplateOptions {
  return {
    chartDir: CHART,
    releaseName: 'rel',
    namespace: 'apps',
    values: {},
    apiVersions: [],
    crds: 'include',
    isUpgrade: false,
    disableHooks: false,
    disableOpenAPIValidation: false,
    timeoutMs: 60_000,
    maxOutputBytes: 16 * 1024 * 1024,
    ...overrides,
  };
}

function render(overrides: Partial<TemplateOptions> = {}): Promise<ChartRender> {
  return helmTemplate(runner, options(overrides), scratch());
}

const ids = (objects: readonly Manifest[]): string[] =>
  objects.map((o) => `${objectMeta(o).kind}/${objectMeta(o).name}`);

function find(objects: readonly Manifest[], kind: string, name: string): Manifest {
  const found = objects.find((o) => objectMeta(o).kind === kind && objectMeta(o).name === name);
  if (!found) throw new Error(`${kind}/${name} not rendered; got ${ids(objects).join(', ')}`);
  return found;
}

const data = (object: Manifest): Record<string, unknown> =>
  object['data'] as Record<string, unknown>;
const image = (deployment: Manifest): unknown =>
  (deployment as { spec: { template: { spec: { containers: { image: unknown }[] } } } }).spec
    .template.spec.containers[0]?.image;

function helmRelease(spec: Record<string, unknown> = {}, apiVersion = 'helm.toolkit.fluxcd.io/v2') {
  return HelmRelease.parse({
    apiVersion,
    kind: 'HelmRelease',
    metadata: { name: 'web', namespace: 'flux-apps' },
    spec: {
      chart: { spec: { chart: 'c', sourceRef: { kind: 'HelmRepository', name: 'r' } } },
      ...spec,
    },
  });
}

describe('helmTemplate', () => {
  it('keeps the crds/ files of the chart and its subcharts apart from the templates', async () => {
    const rendered = await render();
    expect(ids(rendered.crds)).toEqual([
      'CustomResourceDefinition/widgets.example.com',
      'CustomResourceDefinition/gadgets.example.com',
      'CustomResourceDefinition/things.example.com',
    ]);
    expect(ids(rendered.objects)).toContain('ConfigMap/rel-from-subchart');
    expect(ids(rendered.objects)).not.toContain('CustomResourceDefinition/widgets.example.com');
  });

  it('leaves the crds/ files out when CRDs are skipped', async () => {
    const rendered = await render({ crds: 'skip' });
    expect(rendered.crds).toEqual([]);
    expect(ids(rendered.objects)).toContain('ConfigMap/rel-settings');
  });

  it.each([
    ['no policies (both default to Create)', 'include', {}, false],
    ['install Skip, upgrade default', 'include', { install: { crds: 'Skip' } }, false],
    ['upgrade Skip, install default', 'include', { upgrade: { crds: 'Skip' } }, false],
    ['both Skip', 'skip', { install: { crds: 'Skip' }, upgrade: { crds: 'Skip' } }, false],
    [
      'skipCRDs, upgrade Skip',
      'skip',
      { install: { skipCRDs: true }, upgrade: { crds: 'Skip' } },
      false,
    ],
    ['CreateReplace, user skips', 'skip', { install: { crds: 'CreateReplace' } }, true],
  ] as const)('crds/ files with %s: %s', (_policies, mode, spec, userSkip) => {
    expect(chartCrdsMode(helmRelease(spec), userSkip)).toBe(mode);
  });

  it.each([
    [false, 'install'],
    [true, 'upgrade'],
  ])('renders .Release.IsUpgrade=%s as an %s', async (isUpgrade, action) => {
    const rendered = await render({ isUpgrade });
    expect(data(find(rendered.objects, 'ConfigMap', 'rel-settings'))['action']).toBe(action);
  });

  it('renders .Capabilities.KubeVersion from the kube version given', async () => {
    const old = await render({ kubeVersion: '1.28.4' });
    expect(data(find(old.objects, 'ConfigMap', 'rel-settings'))['kubeVersion']).toBe('v1.28.4');
    expect(ids(old.objects)).not.toContain('ConfigMap/rel-modern-cluster');
    const modern = await render({ kubeVersion: 'v1.31.2' });
    expect(ids(modern.objects)).toContain('ConfigMap/rel-modern-cluster');
  });

  it('renders .Capabilities.APIVersions.Has branches only for the API versions given', async () => {
    const without = await render();
    expect(ids(without.objects)).not.toContain('ServiceMonitor/rel-monitor');
    expect(data(find(without.objects, 'ConfigMap', 'rel-settings'))['hasMonitoring']).toBe('false');
    const withMonitoring = await render({
      apiVersions: ['monitoring.coreos.com/v1', 'monitoring.coreos.com/v1/ServiceMonitor'],
    });
    expect(ids(withMonitoring.objects)).toContain('ServiceMonitor/rel-monitor');
    expect(data(find(withMonitoring.objects, 'ConfigMap', 'rel-settings'))['hasMonitoring']).toBe(
      'true',
    );
  });

  const HOOKS = ['Job/rel-migrate', 'ConfigMap/rel-after-upgrade', 'Job/rel-cleanup'];
  const TESTS = ['Pod/rel-test-connection', 'Pod/rel-legacy-test'];
  it.each([
    ['install runs pre-install hooks only', {}, ['Job/rel-migrate']],
    [
      'upgrade runs pre- and post-upgrade hooks',
      { isUpgrade: true },
      ['Job/rel-migrate', 'ConfigMap/rel-after-upgrade'],
    ],
    ['disabled hooks run none', { disableHooks: true }, []],
    ['enabled tests add the test hooks', { includeTests: true }, ['Job/rel-migrate', ...TESTS]],
  ] as const)('hooks: %s', async (_name, overrides, expected) => {
    const rendered = await render(overrides);
    const hooks = ids(rendered.objects).filter((id) => HOOKS.includes(id) || TESTS.includes(id));
    expect(hooks.sort()).toEqual([...expected].sort());
    expect(ids(rendered.objects)).toContain('Deployment/rel-app');
  });

  it('renders only the templates asked for with showOnly', async () => {
    const rendered = await render({ showOnly: ['templates/clusterrole.yaml'], crds: 'skip' });
    expect(ids(rendered.objects)).toEqual(['ClusterRole/rel-reader']);
  });

  it.each([
    ['a missing required value', { strict: true }, 'strict mode needs .Values.name'],
    ['a fail call', { explode: true }, 'explode was set, refusing to render'],
    ['a values schema violation', { replicas: 'two' }, 'replicas'],
  ])(
    'fails with helm’s message for %s, without values or scratch paths',
    async (_n, values, text) => {
      const dir = scratch();
      const error = await helmTemplate(
        runner,
        options({ values: { ...values, token: 's3cr3t-v4lue' } }),
        dir,
      ).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(TemplateError);
      const { message, code } = error as TemplateError;
      expect(code).toBe('invalid-content');
      expect(message).toContain(text);
      expect(message).not.toContain('s3cr3t-v4lue');
      expect(message).not.toContain(dir);
      expect(message).not.toMatch(/^Error:/);
    },
  );

  it('skips the values schema when schema validation is disabled', async () => {
    const rendered = await render({ values: { replicas: 'two' }, disableSchemaValidation: true });
    expect(ids(rendered.objects)).toContain('Deployment/rel-app');
  });

  it('passes values in a file, never on the command line, and keeps YAML 1.1 lookalikes strings', async () => {
    const run = vi.spyOn(runner, 'run');
    const rendered = await render({ values: { greeting: 'on' } });
    const argv = run.mock.calls.flatMap(([, args]) => args);
    run.mockRestore();
    expect(data(find(rendered.objects, 'ConfigMap', 'rel-settings'))['greeting']).toBe('on');
    expect(argv.some((arg) => arg.includes('greeting') || arg.startsWith('--set'))).toBe(false);
    expect(argv.some((arg) => arg.startsWith('--values='))).toBe(true);
  });
});

describe('postRender', () => {
  const hr = (spec: Record<string, unknown> = {}, apiVersion?: string) =>
    helmRelease({ targetNamespace: 'apps', ...spec }, apiVersion);

  it('applies the kustomize post-renderers in order, each on the previous one’s output', async () => {
    const rendered = await render();
    const release = hr({
      postRenderers: [
        {
          kustomize: {
            patches: [
              {
                target: { kind: 'Deployment', name: 'rel-app' },
                patch:
                  '- op: replace\n  path: /spec/template/spec/containers/0/image\n  value: example.org/app:1\n',
              },
              {
                patch:
                  'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: rel-app\n  labels:\n    patched: strategic\n',
              },
            ],
          },
        },
        { kustomize: { images: [{ name: 'example.org/app', newTag: '2' }] } },
      ],
    });
    const out = await postRender(runner, rendered, release, 'apps', scratch(), KUSTOMIZE);
    const deployment = find(out, 'Deployment', 'rel-app');
    expect(image(deployment)).toBe('example.org/app:2');
    expect(objectMeta(deployment).labels['patched']).toBe('strategic');
  });

  it.each([
    ['v2beta2 applies them', 'helm.toolkit.fluxcd.io/v2beta2', 'legacy', 'busybox:9'],
    ['v2 has no such fields', 'helm.toolkit.fluxcd.io/v2', undefined, 'nginx:1.0'],
  ])('patchesStrategicMerge and patchesJson6902: %s', async (_n, apiVersion, label, expected) => {
    const rendered = await render();
    const release = hr(
      {
        postRenderers: [
          {
            kustomize: {
              patchesStrategicMerge: [
                {
                  apiVersion: 'apps/v1',
                  kind: 'Deployment',
                  metadata: { name: 'rel-app', labels: { via: 'legacy' } },
                },
              ],
              patchesJson6902: [
                {
                  target: { group: 'apps', version: 'v1', kind: 'Deployment', name: 'rel-app' },
                  patch: [
                    {
                      op: 'replace',
                      path: '/spec/template/spec/containers/0/image',
                      value: 'busybox:9',
                    },
                  ],
                },
              ],
            },
          },
        ],
      },
      apiVersion,
    );
    const out = await postRender(runner, rendered, release, 'apps', scratch(), KUSTOMIZE);
    const deployment = find(out, 'Deployment', 'rel-app');
    expect(objectMeta(deployment).labels['via']).toBe(label);
    expect(image(deployment)).toBe(expected);
  });

  it('reports a failing post-renderer with kustomize’s message and no scratch paths', async () => {
    const rendered = await render();
    const dir = scratch();
    const release = hr({
      postRenderers: [
        {
          kustomize: {
            patches: [{ patch: '- op: remove\n  path: /nope\n', target: { kind: 'Deployment' } }],
          },
        },
      ],
    });
    const error = await postRender(runner, rendered, release, 'apps', dir, KUSTOMIZE).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PostRenderError);
    expect((error as PostRenderError).message).toContain('post-renderer failed');
    expect((error as PostRenderError).message).not.toContain(dir);
  });

  it('puts commonMetadata on templates and hooks over chart values, but not on crds/ objects', async () => {
    const rendered = await render();
    const release = hr({
      commonMetadata: {
        labels: { team: 'platform', [ORIGIN_NAME_LABEL]: 'spoofed' },
        annotations: { owner: 'sre' },
      },
    });
    const out = await postRender(runner, rendered, release, 'apps', scratch(), KUSTOMIZE);
    for (const [kind, name] of [
      ['ConfigMap', 'rel-settings'],
      ['Job', 'rel-migrate'],
    ] as const) {
      const meta = objectMeta(find(out, kind, name));
      expect(meta.labels['team']).toBe('platform');
      expect(meta.annotations['owner']).toBe('sre');
      expect(meta.labels[ORIGIN_NAME_LABEL]).toBe('web');
    }
    const crd = objectMeta(find(out, 'CustomResourceDefinition', 'widgets.example.com'));
    expect(crd.labels['team']).toBeUndefined();
    expect(crd.annotations['owner']).toBeUndefined();
  });

  it('labels every object, crds/ included, with the HelmRelease’s name and namespace', async () => {
    const rendered = await render({ includeTests: true });
    const out = await postRender(runner, rendered, hr(), 'apps', scratch(), KUSTOMIZE);
    expect(out.length).toBe(rendered.crds.length + rendered.objects.length);
    for (const object of out) {
      const { labels } = objectMeta(object);
      expect([labels[ORIGIN_NAME_LABEL], labels[ORIGIN_NAMESPACE_LABEL]]).toEqual([
        'web',
        'flux-apps',
      ]);
    }
  });

  it('sends no hooks through the chain under postRenderStrategy nohooks', async () => {
    const rendered = await render();
    const release = hr({
      postRenderStrategy: 'nohooks',
      commonMetadata: { labels: { team: 'platform' } },
      postRenderers: [{ kustomize: { images: [{ name: 'nginx', newTag: '9.9' }] } }],
    });
    const out = await postRender(runner, rendered, release, 'apps', scratch(), KUSTOMIZE);
    const hook = find(out, 'Job', 'rel-migrate');
    expect(objectMeta(hook).labels).toEqual({});
    expect(image(find(out, 'Deployment', 'rel-app'))).toBe('nginx:9.9');
    expect(JSON.stringify(hook)).toContain('nginx:1.0');
  });

  let placed: Promise<Manifest[]> | undefined;
  it.each([
    ['a namespaced object without one', 'apps', 'ConfigMap', 'rel-settings'],
    ['an object with its own namespace', 'elsewhere', 'ConfigMap', 'rel-elsewhere'],
    ['a hook', 'apps', 'Job', 'rel-migrate'],
    ['a namespaced custom resource', 'apps', 'Widget', 'rel-widget'],
    ['a ClusterRole', undefined, 'ClusterRole', 'rel-reader'],
    ['a CustomResourceDefinition', undefined, 'CustomResourceDefinition', 'widgets.example.com'],
    ['a kind of a cluster-scoped chart CRD', undefined, 'Gadget', 'rel-gadget'],
  ])('places %s in namespace %s', async (_what, namespace, kind, name) => {
    placed ??= render().then((r) => postRender(runner, r, hr(), 'apps', scratch(), KUSTOMIZE));
    expect(objectMeta(find(await placed, kind, name)).namespace).toBe(namespace);
  });

  const cm = (name: string, extra: Record<string, unknown> = {}): Manifest => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...extra },
  });
  const hook = (name: string): Manifest =>
    cm(name, { annotations: { 'helm.sh/hook': 'pre-install' } });
  const ns = (namespace: string) => ({ namespace });

  it.each([
    ['one id, unset and default namespace', true, 'combined', [cm('a'), cm('a', ns('default'))]],
    ['hook and template id, one stream', true, 'combined', [cm('a'), hook('a')]],
    ['hook and template id, two streams', false, 'separate', [cm('a'), hook('a')]],
    ['one name in two namespaces', false, 'combined', [cm('a'), cm('a', ns('other'))]],
    ['an object without a name', true, 'combined', [cm('')]],
  ])('post-render fails on %s: %s', async (_what, fails, strategy, objects) => {
    const rendered: ChartRender = { crds: [], objects: structuredClone(objects) };
    const release = hr({ postRenderStrategy: strategy });
    const result = postRender(runner, rendered, release, 'apps', scratch(), KUSTOMIZE);
    if (fails) await expect(result).rejects.toBeInstanceOf(PostRenderError);
    else await expect(result).resolves.toHaveLength(objects.length);
  });

  it('unpacks List objects into their items and leaves its input untouched', async () => {
    const list: Manifest = { apiVersion: 'v1', kind: 'List', items: [cm('x'), cm('y')] };
    const rendered: ChartRender = { crds: [], objects: [list] };
    const before = structuredClone(rendered);
    const out = await postRender(runner, rendered, hr(), 'apps', scratch(), KUSTOMIZE);
    expect(ids(out)).toEqual(['ConfigMap/x', 'ConfigMap/y']);
    expect(objectMeta(find(out, 'ConfigMap', 'y')).labels[ORIGIN_NAME_LABEL]).toBe('web');
    expect(rendered).toEqual(before);
  });
});
