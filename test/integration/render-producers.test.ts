/**
 * The builtin engine end to end with real kustomize: how Kustomizations become producers
 * (from files, from their parent's rendered output, in dependency order), how post-build
 * substitution is wired to the cluster rendered so far, and how one producer's failure
 * stays with that producer while the rest of the cluster renders.
 */
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { FluxlensError } from '../../src/errors.js';
import type { RenderSettings } from '../../src/render/index.js';
import {
  objectMeta,
  type Manifest,
  type Producer,
  type RenderedCluster,
  type RenderedObject,
} from '../../src/model/render.js';
import { renderToJson, renderToYaml } from '../../src/analysis/index.js';
import { bootstrap, makeRepo, type RepoFiles, type TestRepo } from '../support/repo.js';
import { builtinEngine } from '../support/render.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

async function render(
  files: RepoFiles,
  settings: Partial<RenderSettings> = {},
): Promise<RenderedCluster> {
  const repo = makeRepo(files);
  repos.push(repo);
  return builtinEngine(settings).render({ repoDir: repo.dir, entry: '.', sources: [] });
}

const yaml = (...docs: object[]): string => docs.map((d) => stringify(d)).join('---\n');
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** A Flux Kustomization reading the reviewed repository, in flux-system unless told. */
function ks(
  name: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = { namespace: 'flux-system' },
): object {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, ...metadata },
    spec: {
      interval: '10m',
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      ...spec,
    },
  };
}

function configMap(
  name: string,
  data: Record<string, string>,
  metadata: Record<string, unknown> = { namespace: 'flux-system' },
): object {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...metadata }, data };
}

function secret(
  name: string,
  body: { data?: Record<string, string>; stringData?: Record<string, string> },
  metadata: Record<string, unknown> = { namespace: 'flux-system' },
): object {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, ...metadata }, ...body };
}

/** The bootstrap Kustomization (flux-system, path clusters/prod) plus `files`. */
function fleet(files: RepoFiles): RepoFiles {
  return { 'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'), ...files };
}

function findObject(
  cluster: RenderedCluster,
  kind: string,
  name: string,
  namespace?: string,
): RenderedObject | undefined {
  return cluster.objects.find((o) => {
    const meta = objectMeta(o.manifest);
    return (
      meta.kind === kind &&
      meta.name === name &&
      (namespace === undefined || meta.namespace === namespace)
    );
  });
}

function object(
  cluster: RenderedCluster,
  kind: string,
  name: string,
  namespace?: string,
): Manifest {
  const found = findObject(cluster, kind, name, namespace);
  if (!found) {
    const have = cluster.objects.map((o) => `${o.manifest['kind']}/${objectMeta(o.manifest).name}`);
    throw new Error(`no ${kind}/${name} in the render; have: ${have.join(', ')}`);
  }
  return found.manifest;
}

function producer(cluster: RenderedCluster, name: string, namespace = 'flux-system'): Producer {
  const found = cluster.producers.find((p) => p.name === name && p.namespace === namespace);
  if (!found) {
    const have = cluster.producers.map((p) => `${p.namespace}/${p.name}`);
    throw new Error(`no producer ${namespace}/${name}; have: ${have.join(', ')}`);
  }
  return found;
}

function producerNames(cluster: RenderedCluster): string[] {
  return cluster.producers.map((p) => `${p.namespace}/${p.name}`);
}

function dataOf(manifest: Manifest): unknown {
  return manifest['data'];
}

describe('post-build substitution', () => {
  /**
   * `app` renders app/out.yaml with postBuild; `vars` renders the vars/ folder, so its
   * ConfigMaps and Secrets are in the cluster before `app` builds.
   */
  function substitutionFleet(options: {
    postBuild: Record<string, unknown>;
    template: Record<string, string>;
    vars?: object[];
    extra?: RepoFiles;
  }): RepoFiles {
    return fleet({
      'clusters/prod/vars.yaml': yaml(ks('vars', { path: './vars' })),
      'clusters/prod/app.yaml': yaml(ks('app', { path: './app', postBuild: options.postBuild })),
      'vars/objects.yaml': yaml(...(options.vars ?? [configMap('unrelated', { a: 'b' })])),
      'app/out.yaml': yaml(configMap('out', options.template, { namespace: 'apps' })),
      ...options.extra,
    });
  }

  const red = configMap('cm-red', { color: 'red', size: 'L' });
  const green = configMap('cm-green', { color: 'green' });
  const cmRef = (name: string, optional?: boolean) =>
    optional === undefined ? { kind: 'ConfigMap', name } : { kind: 'ConfigMap', name, optional };

  it.each([
    {
      rule: 'inline substitute wins over substituteFrom',
      postBuild: { substitute: { color: 'blue' }, substituteFrom: [cmRef('cm-red')] },
      vars: [red],
      template: { color: '${color}', size: '${size}' },
      expected: { color: 'blue', size: 'L' },
    },
    {
      rule: 'a later substituteFrom entry wins over an earlier one',
      postBuild: { substituteFrom: [cmRef('cm-red'), cmRef('cm-green')] },
      vars: [red, green],
      template: { color: '${color}', size: '${size}' },
      expected: { color: 'green', size: 'L' },
    },
    {
      rule: 'a Secret source is read from its base64 data',
      postBuild: { substituteFrom: [{ kind: 'Secret', name: 'creds' }] },
      vars: [secret('creds', { data: { user: b64('admin'), port: b64('5432') } })],
      template: { user: '${user}', url: 'db:${port}' },
      expected: { user: 'admin', url: 'db:5432' },
    },
    {
      rule: "a Secret source's stringData is read and wins over its data",
      postBuild: { substituteFrom: [{ kind: 'Secret', name: 'creds' }] },
      vars: [
        secret('creds', {
          data: { user: b64('admin'), port: b64('5432') },
          stringData: { user: 'root' },
        }),
      ],
      template: { user: '${user}', port: 'port-${port}' },
      expected: { user: 'root', port: 'port-5432' },
    },
    {
      rule: 'a missing optional source is skipped and the next source still applies',
      postBuild: { substituteFrom: [cmRef('absent', true), cmRef('cm-red')] },
      vars: [red],
      template: { color: '${color}' },
      expected: { color: 'red' },
    },
    {
      rule: "only sources in the Kustomization's own namespace are read",
      postBuild: { substitute: { size: 'S' }, substituteFrom: [cmRef('cm-red', true)] },
      vars: [configMap('cm-red', { color: 'red' }, { namespace: 'other' })],
      template: { color: '${color:=unset}' },
      expected: { color: 'unset' },
    },
  ])('$rule', async ({ postBuild, vars, template, expected }) => {
    const cluster = await render(substitutionFleet({ postBuild, vars, template }));
    expect(cluster.errors).toEqual([]);
    expect(producer(cluster, 'app').error).toBeUndefined();
    expect(dataOf(object(cluster, 'ConfigMap', 'out'))).toEqual(expected);
  });

  it('reads a source that the parent Kustomization produced', async () => {
    const cluster = await render(
      fleet({
        // Generated by the parent's build: the values exist in no file.
        'clusters/prod/kustomization.yaml': yaml({
          resources: ['flux-system.yaml', 'app.yaml'],
          configMapGenerator: [
            {
              name: 'cluster-vars',
              namespace: 'flux-system',
              literals: ['region=eu-1'],
              options: { disableNameSuffixHash: true },
            },
          ],
        }),
        'clusters/prod/app.yaml': yaml(
          ks('app', {
            path: './app',
            postBuild: { substituteFrom: [{ kind: 'ConfigMap', name: 'cluster-vars' }] },
          }),
        ),
        'app/out.yaml': yaml(configMap('out', { region: '${region}' }, { namespace: 'apps' })),
      }),
    );
    expect(findObject(cluster, 'ConfigMap', 'cluster-vars')?.producer.name).toBe('flux-system');
    expect(dataOf(object(cluster, 'ConfigMap', 'out'))).toEqual({ region: 'eu-1' });
  });

  it('fails only the producer whose non-optional source is missing, as Flux does', async () => {
    const cluster = await render(
      substitutionFleet({
        postBuild: { substituteFrom: [cmRef('absent')] },
        template: { color: '${color}' },
      }),
      { inClusterSources: 'fail' },
    );
    expect(producer(cluster, 'app').error).toBe(
      "post build failed: substitute from 'ConfigMap/absent' error: not found",
    );
    expect(cluster.errors).toContainEqual(
      expect.objectContaining({
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'app' },
        message: expect.stringContaining("'ConfigMap/absent'"),
      }),
    );
    expect(findObject(cluster, 'ConfigMap', 'out')).toBeUndefined();
    expect(object(cluster, 'ConfigMap', 'unrelated')).toBeDefined();
    expect(producer(cluster, 'vars').error).toBeUndefined();
  });

  it.each([
    {
      how: 'label',
      metadata: { labels: { 'kustomize.toolkit.fluxcd.io/substitute': 'disabled' } },
    },
    {
      how: 'annotation',
      metadata: { annotations: { 'kustomize.toolkit.fluxcd.io/substitute': 'disabled' } },
    },
  ])('skips an object marked with the substitute: disabled $how', async ({ metadata }) => {
    const cluster = await render(
      fleet({
        'clusters/prod/app.yaml': yaml(
          ks('app', { path: './app', postBuild: { substitute: { color: 'blue' } } }),
        ),
        'app/objects.yaml': yaml(
          configMap('plain', { color: '${color}' }, { namespace: 'apps' }),
          configMap(
            'marked',
            { color: '${color}', other: '${undefined_here}' },
            {
              namespace: 'apps',
              ...metadata,
            },
          ),
        ),
      }),
    );
    expect(producer(cluster, 'app').error).toBeUndefined();
    expect(dataOf(object(cluster, 'ConfigMap', 'plain'))).toEqual({ color: 'blue' });
    expect(dataOf(object(cluster, 'ConfigMap', 'marked'))).toEqual({
      color: '${color}',
      other: '${undefined_here}',
    });
  });

  it.each([
    {
      rule: 'strict mode (the default) renders a defined variable',
      settings: {},
      postBuild: { substitute: { color: 'blue' } },
      template: { color: '${color}' },
      expected: { color: 'blue' },
    },
    {
      rule: 'strict mode takes ${VAR:=default} for an undefined variable',
      settings: {},
      postBuild: { substitute: { color: 'blue' } },
      template: { color: '${color}', size: '${size:=M}' },
      expected: { color: 'blue', size: 'M' },
    },
    {
      rule: 'lenient mode renders an undefined variable empty',
      settings: { strictSubstitution: false },
      postBuild: { substitute: { color: 'blue' } },
      template: { color: '${color}', size: 'x${size}x' },
      expected: { color: 'blue', size: 'xx' },
    },
    {
      rule: 'substituteStrategy Always evaluates defaults with no variables at all',
      settings: {},
      postBuild: { substituteStrategy: 'Always' },
      template: { size: '${size:=M}' },
      expected: { size: 'M' },
    },
    {
      rule: 'without variables and without Always, references are left as written',
      settings: {},
      postBuild: { substituteFrom: [cmRef('absent', true)] },
      template: { size: '${size:=M}', color: '${color}' },
      expected: { size: '${size:=M}', color: '${color}' },
    },
  ])('$rule', async ({ settings, postBuild, template, expected }) => {
    const cluster = await render(substitutionFleet({ postBuild, template }), settings);
    expect(cluster.errors).toEqual([]);
    expect(dataOf(object(cluster, 'ConfigMap', 'out'))).toEqual(expected);
  });

  it('fails the producer naming the undefined variable in strict mode; others still render', async () => {
    const cluster = await render(
      substitutionFleet({
        postBuild: { substitute: { color: 'blue' } },
        template: { color: '${color}', size: '${cluster_size}' },
      }),
    );
    const error = producer(cluster, 'app').error;
    expect(error).toMatch(
      /^post build failed for 'ConfigMap\/out': envsubst error: .*variable not set \(strict mode\): "cluster_size"$/,
    );
    expect(cluster.errors.map((e) => e.producer.name)).toEqual(['app']);
    expect(findObject(cluster, 'ConfigMap', 'out')).toBeUndefined();
    expect(object(cluster, 'ConfigMap', 'unrelated')).toBeDefined();
    expect(object(cluster, 'Kustomization', 'app')).toBeDefined();
  });

  it('re-reads substituted text as YAML, so numbers and booleans change type', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'apps', labels: { version: 'v${replicas}' } },
      spec: {
        replicas: '${replicas}',
        paused: '${paused}',
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:${tag}' }] },
        },
      },
    };
    const cluster = await render(
      fleet({
        'clusters/prod/app.yaml': yaml(
          ks('app', {
            path: './app',
            postBuild: { substitute: { replicas: '3', paused: 'true', tag: '1.27' } },
          }),
        ),
        'app/deploy.yaml': yaml(deployment),
      }),
    );
    const web = object(cluster, 'Deployment', 'web');
    const spec = web['spec'] as Record<string, unknown>;
    expect(spec['replicas']).toBe(3);
    expect(spec['paused']).toBe(true);
    expect(objectMeta(web).labels['version']).toBe('v3');
    expect(JSON.stringify(spec['template'])).toContain('"image":"nginx:1.27"');
  });

  describe('Secret values', () => {
    const password = 'hunter2-s3cr3t';
    // Substituted into a plain scalar, this value makes the object unreadable YAML.
    const breaking = `oops: [${password}`;
    const files = (template: Record<string, string>) =>
      substitutionFleet({
        postBuild: { substituteFrom: [{ kind: 'Secret', name: 'db' }] },
        vars: [secret('db', { data: { password: b64(password), breaking: b64(breaking) } })],
        template,
        extra: {
          'app/secret.yaml': yaml(
            secret(
              'app-db',
              { stringData: { url: 'postgres://app:${password}@db' } },
              { namespace: 'apps' },
            ),
          ),
        },
      });

    it('are substituted but redacted from the YAML and JSON output', async () => {
      const cluster = await render(files({ plain: 'no secret here' }));
      expect(cluster.errors).toEqual([]);
      // The renderer holds the value (Flux would apply it) ...
      expect(object(cluster, 'Secret', 'app-db')['stringData']).toEqual({
        url: `postgres://app:${password}@db`,
      });
      // ... but neither output format shows it, nor the source Secret's data.
      for (const text of [renderToYaml(cluster), renderToJson(cluster)]) {
        expect(text).not.toContain(password);
        expect(text).not.toContain(b64(password));
        expect(text).toContain('<redacted>');
      }
      const json = JSON.parse(renderToJson(cluster)) as { objects: { manifest: Manifest }[] };
      const appDb = json.objects.find((o) => objectMeta(o.manifest).name === 'app-db');
      expect(appDb?.manifest['stringData']).toEqual({ url: '<redacted>' });
      const db = json.objects.find((o) => objectMeta(o.manifest).name === 'db');
      expect(db?.manifest['data']).toEqual({ password: '<redacted>', breaking: '<redacted>' });
    });

    it.each([
      { failure: 'an undefined variable', template: { other: '${not_defined}' } },
      { failure: 'a value that breaks the YAML', template: { broken: 'x${breaking}' } },
    ])('never appear in the error for $failure', async ({ template }) => {
      const cluster = await render(files(template));
      const error = producer(cluster, 'app').error;
      expect(error).toMatch(/post build failed/);
      const everything = JSON.stringify(cluster.errors) + renderToJson(cluster);
      expect(everything).not.toContain(password);
      expect(everything).not.toContain(b64(password));
      expect(everything).not.toContain(b64(breaking));
    });
  });
});

describe('producers', () => {
  it("defines a child Kustomization by its parent's rendered output", async () => {
    // infra moves its output to team-a, labels it, substitutes ${env} and patches the
    // child's path and postBuild; the child must render with that patched spec.
    const cluster = await render(
      fleet({
        'clusters/prod/infra.yaml': yaml(
          ks('infra', {
            path: './infra',
            targetNamespace: 'team-a',
            commonMetadata: { labels: { team: 'a' } },
            postBuild: { substitute: { env: 'prod' } },
            patches: [
              {
                target: { kind: 'Kustomization', name: 'child' },
                patch: stringify([
                  { op: 'replace', path: '/spec/path', value: './child-patched' },
                  {
                    op: 'add',
                    path: '/spec/postBuild',
                    value: { substitute: { greeting: 'hello' } },
                  },
                ]),
              },
            ],
          }),
        ),
        'infra/child.yaml': yaml(
          ks(
            'child',
            {
              path: './child-original',
              targetNamespace: 'app-${env}',
              sourceRef: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' },
            },
            {},
          ),
        ),
        'child-original/cm.yaml': yaml(configMap('original', { a: 'b' }, {})),
        'child-patched/cm.yaml': yaml(configMap('patched', { greeting: '${greeting}' }, {})),
      }),
    );
    expect(cluster.errors).toEqual([]);
    expect(producerNames(cluster)).toEqual([
      'flux-system/flux-system',
      'flux-system/infra',
      'team-a/child',
    ]);
    const childObject = object(cluster, 'Kustomization', 'child');
    expect(objectMeta(childObject)).toMatchObject({
      namespace: 'team-a',
      labels: {
        team: 'a',
        'kustomize.toolkit.fluxcd.io/name': 'infra',
        'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
      },
    });
    expect(childObject['spec']).toMatchObject({
      path: './child-patched',
      targetNamespace: 'app-prod',
      postBuild: { substitute: { greeting: 'hello' } },
    });
    expect(producer(cluster, 'child', 'team-a')).toMatchObject({
      path: 'child-patched',
      definedIn: { parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' } },
    });
    const patched = findObject(cluster, 'ConfigMap', 'patched');
    expect(patched?.producer).toEqual({
      kind: 'Kustomization',
      namespace: 'team-a',
      name: 'child',
    });
    expect(patched?.file).toBe('child-patched/cm.yaml');
    expect(objectMeta(patched?.manifest ?? {}).namespace).toBe('app-prod');
    expect(dataOf(patched?.manifest ?? {})).toEqual({ greeting: 'hello' });
    expect(findObject(cluster, 'ConfigMap', 'original')).toBeUndefined();
  });

  it('recurses three levels deep', async () => {
    const cluster = await render(
      fleet({
        'clusters/prod/level1.yaml': yaml(ks('level1', { path: './level1' })),
        'level1/level2.yaml': yaml(ks('level2', { path: './level2' })),
        'level2/level3.yaml': yaml(ks('level3', { path: './level3' })),
        'level3/cm.yaml': yaml(configMap('deepest', { depth: '3' }, { namespace: 'apps' })),
      }),
    );
    expect(cluster.errors).toEqual([]);
    const parentOf = (name: string) => {
      const definedIn = producer(cluster, name).definedIn;
      return 'parent' in definedIn ? definedIn.parent.name : `file ${definedIn.file}`;
    };
    expect(['level1', 'level2', 'level3'].map(parentOf)).toEqual([
      'flux-system',
      'level1',
      'level2',
    ]);
    expect(findObject(cluster, 'Kustomization', 'level3')?.producer.name).toBe('level2');
    expect(findObject(cluster, 'ConfigMap', 'deepest')).toMatchObject({
      producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'level3' },
      file: 'level3/cm.yaml',
    });
  });

  it('takes a Kustomization both in a file and in its parent output as one producer defined by the parent', async () => {
    const cluster = await render(
      fleet({
        'clusters/prod/apps.yaml': yaml(ks('apps', { path: './apps' })),
        'apps/cm.yaml': yaml(configMap('app-config', { a: 'b' }, { namespace: 'apps' })),
      }),
    );
    expect(producerNames(cluster)).toEqual(['flux-system/apps', 'flux-system/flux-system']);
    expect(producer(cluster, 'apps').definedIn).toEqual({
      parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
    });
    expect(producer(cluster, 'flux-system').definedIn).toEqual({
      file: 'clusters/prod/flux-system.yaml',
      line: expect.any(Number),
    });
    expect(
      cluster.objects.filter((o) => objectMeta(o.manifest).name === 'app-config'),
    ).toHaveLength(1);
  });

  it('renders a Kustomization after the one that produces its substituteFrom source', async () => {
    // 'a-app' sorts before 'z-vars', so only the dependency can make it wait.
    const cluster = await render(
      fleet({
        'clusters/prod/a-app.yaml': yaml(
          ks('a-app', {
            path: './app',
            postBuild: { substituteFrom: [{ kind: 'ConfigMap', name: 'late-vars' }] },
          }),
        ),
        // The value exists only in z-vars' rendered output, not in the file.
        'clusters/prod/z-vars.yaml': yaml(
          ks('z-vars', { path: './vars', postBuild: { substitute: { shade: 'purple' } } }),
        ),
        'vars/cm.yaml': yaml(configMap('late-vars', { color: '${shade}' })),
        'app/out.yaml': yaml(configMap('out', { color: '${color}' }, { namespace: 'apps' })),
      }),
      { concurrency: 1 },
    );
    expect(cluster.errors).toEqual([]);
    expect(findObject(cluster, 'ConfigMap', 'late-vars')?.producer.name).toBe('z-vars');
    expect(dataOf(object(cluster, 'ConfigMap', 'out'))).toEqual({ color: 'purple' });
  });

  it('reports a Kustomization cycle and still renders every producer', async () => {
    const cluster = await render(
      fleet({
        'clusters/prod/a.yaml': yaml(ks('a', { path: './a' })),
        'a/b.yaml': yaml(ks('b', { path: './b' })),
        'a/cm.yaml': yaml(configMap('from-a', { x: '1' }, { namespace: 'apps' })),
        'b/a.yaml': yaml(ks('a', { path: './a' })),
        'b/cm.yaml': yaml(configMap('from-b', { x: '1' }, { namespace: 'apps' })),
        'clusters/prod/other.yaml': yaml(ks('other', { path: './other' })),
        'other/cm.yaml': yaml(configMap('from-other', { x: '1' }, { namespace: 'apps' })),
      }),
    );
    const cycle = cluster.errors.filter((e) => /cycle/.test(e.message));
    expect(cycle).toHaveLength(1);
    expect(cycle[0]?.producer).toEqual({
      kind: 'Kustomization',
      namespace: 'flux-system',
      name: 'b',
    });
    expect(cycle[0]?.message).toContain('flux-system/a -> flux-system/b -> flux-system/a');
    expect(findObject(cluster, 'ConfigMap', 'from-a')?.producer.name).toBe('a');
    expect(findObject(cluster, 'ConfigMap', 'from-b')?.producer.name).toBe('b');
    expect(findObject(cluster, 'ConfigMap', 'from-other')?.producer.name).toBe('other');
    expect(producer(cluster, 'a').definedIn).toEqual({
      parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
    });
  });

  it('reports two parents applying the same Kustomization as a duplicate producer', async () => {
    const cluster = await render(
      fleet({
        'clusters/prod/p1.yaml': yaml(ks('p1', { path: './p1' })),
        'clusters/prod/p2.yaml': yaml(ks('p2', { path: './p2' })),
        'p1/shared.yaml': yaml(ks('shared', { path: './shared-one' })),
        // p2 applies the same file, patched to another path.
        'p2/kustomization.yaml': yaml({
          resources: ['../p1/shared.yaml'],
          patches: [
            {
              target: { kind: 'Kustomization', name: 'shared' },
              patch: stringify([{ op: 'replace', path: '/spec/path', value: './shared-two' }]),
            },
          ],
        }),
        'shared-one/cm.yaml': yaml(configMap('one', { x: '1' }, { namespace: 'apps' })),
        'shared-two/cm.yaml': yaml(configMap('two', { x: '1' }, { namespace: 'apps' })),
      }),
      { concurrency: 1 },
    );
    expect(cluster.errors).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'p2' },
        message:
          'duplicate producer: Kustomization flux-system/shared is also applied by flux-system/p1',
      },
    ]);
    expect(producer(cluster, 'shared')).toMatchObject({
      path: 'shared-one',
      definedIn: { parent: { kind: 'Kustomization', namespace: 'flux-system', name: 'p1' } },
    });
    expect(findObject(cluster, 'ConfigMap', 'one')).toBeDefined();
    expect(findObject(cluster, 'ConfigMap', 'two')).toBeUndefined();
  });

  it('reports two files defining the same Kustomization differently as a duplicate', async () => {
    const cluster = await render({
      'clusters/a.yaml': yaml(ks('apps', { path: './apps-a' })),
      'clusters/b.yaml': yaml(ks('apps', { path: './apps-b' })),
      'apps-a/cm.yaml': yaml(configMap('a', { x: '1' }, { namespace: 'apps' })),
      'apps-b/cm.yaml': yaml(configMap('b', { x: '1' }, { namespace: 'apps' })),
    });
    expect(cluster.errors).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
        file: 'clusters/b.yaml',
        message: 'duplicate Kustomization flux-system/apps: also defined in clusters/a.yaml',
      },
    ]);
    expect(producerNames(cluster)).toEqual(['flux-system/apps']);
    expect(producer(cluster, 'apps').path).toBe('apps-a');
  });

  it('records suspend, prune and dependsOn per producer, and renders a suspended one', async () => {
    const cluster = await render(
      fleet({
        'clusters/prod/apps.yaml': yaml(
          ks('apps', {
            path: './apps',
            suspend: true,
            prune: true,
            dependsOn: [{ name: 'infra' }, { name: 'crds', namespace: 'platform' }],
          }),
          ks('infra', { path: './infra', prune: false }),
        ),
        'apps/cm.yaml': yaml(configMap('app-config', { a: 'b' }, { namespace: 'apps' })),
        'infra/cm.yaml': yaml(configMap('infra-config', { a: 'b' }, { namespace: 'infra' })),
      }),
    );
    expect(cluster.errors).toEqual([]);
    expect(producer(cluster, 'apps')).toMatchObject({
      suspend: true,
      prune: true,
      dependsOn: [
        { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' },
        { kind: 'Kustomization', namespace: 'platform', name: 'crds' },
      ],
    });
    expect(producer(cluster, 'infra')).toMatchObject({
      suspend: false,
      prune: false,
      dependsOn: [],
    });
    expect(producer(cluster, 'flux-system')).toMatchObject({ suspend: false, prune: true });
    expect(findObject(cluster, 'ConfigMap', 'app-config')?.producer.name).toBe('apps');
  });
});

describe('per-producer errors', () => {
  const healthy: RepoFiles = {
    'clusters/prod/app.yaml': yaml(ks('app', { path: './app' })),
    'app/cm.yaml': yaml(configMap('healthy', { ok: 'yes' }, { namespace: 'apps' })),
  };
  const deployment = (name: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'apps' },
    spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });

  it.each([
    {
      failure: 'a path that does not exist',
      spec: { path: './nowhere' },
      files: {},
      message: "path 'nowhere' not found",
      file: 'clusters/prod/broken.yaml',
    },
    {
      failure: 'invalid YAML in a file of a folder without kustomization.yaml',
      spec: { path: './broken' },
      files: { 'broken/bad.yaml': 'kind: ConfigMap\nmetadata: [unclosed\n' },
      message: 'failed to decode Kubernetes YAML from broken/bad.yaml',
      file: 'broken/bad.yaml',
    },
    {
      failure: 'invalid YAML in a resource listed by kustomization.yaml',
      spec: { path: './broken' },
      files: {
        'broken/kustomization.yaml': yaml({ resources: ['bad.yaml'] }),
        'broken/bad.yaml': 'kind: ConfigMap\nmetadata: [unclosed\n',
      },
      message: "accumulating resources from 'bad.yaml': MalformedYAMLError",
      file: undefined,
    },
    {
      failure: 'a resource file that is missing',
      spec: { path: './broken' },
      files: { 'broken/kustomization.yaml': yaml({ resources: ['missing.yaml'] }) },
      message: 'open broken/missing.yaml: no such file or directory',
      file: undefined,
    },
    {
      failure: 'a patch whose target does not exist',
      spec: {
        path: './broken',
        patches: [{ patch: stringify(deployment('ghost')) }],
      },
      files: { 'broken/deploy.yaml': yaml(deployment('web')) },
      message: 'failed to find unique target for patch Deployment.v1.apps/ghost',
      file: undefined,
    },
    {
      failure: 'an undefined substitution variable in strict mode',
      spec: { path: './broken', postBuild: { substitute: { known: 'x' } } },
      files: {
        'broken/cm.yaml': yaml(
          configMap('uses-var', { v: '${unknown_var}' }, { namespace: 'apps' }),
        ),
      },
      message: `post build failed for 'ConfigMap/uses-var': envsubst error: variable substitution failed: variable not set (strict mode): "unknown_var"`,
      file: undefined,
    },
  ])('$failure fails only that producer', async ({ spec, files, message, file }) => {
    const cluster = await render(
      fleet({ ...healthy, 'clusters/prod/broken.yaml': yaml(ks('broken', spec)), ...files }),
    );
    const broken = producer(cluster, 'broken');
    expect(broken.error).toContain(message);
    // Messages name source files, never the renderer's scratch copies.
    expect(broken.error).not.toContain(tmpdir());
    expect(cluster.errors).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'broken' },
        ...(file !== undefined ? { file } : {}),
        message: broken.error,
      },
    ]);
    expect(cluster.objects.filter((o) => o.producer.name === 'broken')).toEqual([]);
    expect(findObject(cluster, 'ConfigMap', 'healthy')?.producer.name).toBe('app');
    expect(findObject(cluster, 'Kustomization', 'broken')?.producer.name).toBe('flux-system');
    expect(producer(cluster, 'app').error).toBeUndefined();
  });

  it('rejects a repository without Flux objects at the entry', async () => {
    const promise = render({ 'manifests/cm.yaml': yaml(configMap('lonely', { a: 'b' })) });
    await expect(promise).rejects.toBeInstanceOf(FluxlensError);
    await expect(promise).rejects.toMatchObject({
      code: 'no-flux-objects',
      message: "no Flux Kustomization or HelmRelease found under '.'",
    });
  });
});
