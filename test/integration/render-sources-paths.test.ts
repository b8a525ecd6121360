/**
 * The builtin engine's source, path and build-input rules, end to end with real
 * kustomize: which folder a sourceRef names, how spec.path is read, the kustomization
 * Flux generates for a plain folder, source ignore rules, the Flux spec fields merged
 * into the build, file attribution, and rendering a git revision. Each repository is a
 * throwaway folder built with makeRepo; the bootstrap Kustomization applies
 * clusters/prod, where the Kustomizations under test are defined.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { RenderRequest, RenderSettings, SourceMapping } from '../../src/render/index.js';
import {
  objectMeta,
  type Manifest,
  type Producer,
  type RenderedCluster,
  type RenderedObject,
} from '../../src/model/render.js';
import { builtinEngine } from '../support/render.js';
import { bootstrap, makeRepo, type RepoFiles, type TestRepo } from '../support/repo.js';

const CLUSTER = 'clusters/prod';
const NAME_LABEL = 'kustomize.toolkit.fluxcd.io/name';
const NAMESPACE_LABEL = 'kustomize.toolkit.fluxcd.io/namespace';
const ORIGIN = 'config.kubernetes.io/origin';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

function repo(files: RepoFiles, options: { git?: boolean } = {}): TestRepo {
  const r = makeRepo(files, options);
  repos.push(r);
  return r;
}

/** A repository whose bootstrap Kustomization applies clusters/prod, plus `files`. */
function fleet(files: RepoFiles, options: { git?: boolean } = {}): TestRepo {
  return repo({ [`${CLUSTER}/flux-system.yaml`]: bootstrap(`./${CLUSTER}`), ...files }, options);
}

interface RenderOptions {
  sources?: SourceMapping[];
  repoUrl?: string;
  rev?: string;
  settings?: Partial<RenderSettings>;
}

function render(r: TestRepo, options: RenderOptions = {}): Promise<RenderedCluster> {
  const request: RenderRequest = { repoDir: r.dir, entry: CLUSTER, sources: options.sources ?? [] };
  if (options.repoUrl !== undefined) request.repoUrl = options.repoUrl;
  if (options.rev !== undefined) request.rev = options.rev;
  return builtinEngine(options.settings).render(request);
}

// ---- manifests ----------------------------------------------------------------------

const yaml = (...objects: Manifest[]): string => objects.map((o) => stringify(o)).join('---\n');

function kustomization(
  name: string,
  spec: Record<string, unknown>,
  options: { namespace?: string; apiVersion?: string } = {},
): Manifest {
  return {
    apiVersion: options.apiVersion ?? 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: options.namespace ?? 'flux-system' },
    spec: {
      interval: '10m',
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      ...spec,
    },
  };
}

function source(
  kind: string,
  name: string,
  spec: Record<string, unknown> = {},
  namespace = 'flux-system',
): Manifest {
  return {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind,
    metadata: { name, namespace },
    spec: { interval: '1m', ...spec },
  };
}

function configMap(name: string, data: Record<string, string> = { key: name }): Manifest {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

function deployment(name: string, images: string[]): Manifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
      },
    },
  };
}

function kustomizeFile(fields: Record<string, unknown>): string {
  return stringify({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    ...fields,
  });
}

// ---- queries ------------------------------------------------------------------------

function producer(cluster: RenderedCluster, name: string, namespace = 'flux-system'): Producer {
  const found = cluster.producers.find((p) => p.name === name && p.namespace === namespace);
  if (!found)
    throw new Error(
      `no producer ${namespace}/${name}: ${cluster.producers.map((p) => p.name).join(', ')}`,
    );
  return found;
}

function objectsOf(
  cluster: RenderedCluster,
  name: string,
  namespace = 'flux-system',
): RenderedObject[] {
  return cluster.objects.filter(
    (o) => o.producer.name === name && o.producer.namespace === namespace,
  );
}

/** `Kind/name` of every object a producer renders, sorted. */
function idsOf(cluster: RenderedCluster, name: string, namespace = 'flux-system'): string[] {
  return objectsOf(cluster, name, namespace)
    .map((o) => `${objectMeta(o.manifest).kind}/${objectMeta(o.manifest).name}`)
    .sort();
}

function objectOf(
  cluster: RenderedCluster,
  producerName: string,
  kind: string,
  name: string,
): RenderedObject {
  const found = objectsOf(cluster, producerName).filter(
    (o) => objectMeta(o.manifest).kind === kind && objectMeta(o.manifest).name === name,
  );
  if (found.length !== 1) {
    throw new Error(
      `expected one ${kind}/${name} from ${producerName}, got ${idsOf(cluster, producerName).join(', ')}`,
    );
  }
  return found[0]!;
}

function containerImages(object: RenderedObject): string[] {
  const spec = object.manifest['spec'] as {
    template: { spec: { containers: { image: string }[] } };
  };
  return spec.template.spec.containers.map((c) => c.image);
}

function errorsOf(cluster: RenderedCluster, name: string): string[] {
  return cluster.errors.filter((e) => e.producer.name === name).map((e) => e.message);
}

/** Every file, symlink and folder under `dir` with its content hash and mode. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const childRel = rel ? `${rel}/${name}` : name;
      const full = join(dir, childRel);
      const info = lstatSync(full);
      if (info.isSymbolicLink()) out[childRel] = `link ${readlinkSync(full)}`;
      else if (info.isDirectory()) {
        out[childRel] = `dir ${info.mode}`;
        walk(childRel);
      } else {
        out[childRel] =
          `file ${info.mode} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`;
      }
    }
  };
  walk('');
  return out;
}

// ---- 1. sourceRef resolution --------------------------------------------------------

describe('sourceRef resolution', () => {
  const app = { 'apps/web/cm.yaml': yaml(configMap('web')) };

  it('renders a Kustomization on the bootstrap flux-system GitRepository from this repository', async () => {
    const r = fleet({
      ...app,
      [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
    });
    const cluster = await render(r);
    expect(producer(cluster, 'web').source).toBe('GitRepository/flux-system/flux-system');
    expect(objectOf(cluster, 'web', 'ConfigMap', 'web').file).toBe('apps/web/cm.yaml');
    expect(cluster.errors).toEqual([]);
  });

  it.each([
    ['ssh://git@github.com/o/r', 'https://github.com/o/r'],
    ['https://github.com/o/r.git', 'ssh://git@github.com/o/r'],
    ['git@github.com:o/r', 'https://github.com/o/r.git'],
    ['https://github.com/o/r', 'git@github.com:o/r.git'],
  ])(
    'renders a GitRepository with url %s from this repository when the repository is %s',
    async (url, repoUrl) => {
      const r = fleet({
        ...app,
        [`${CLUSTER}/web.yaml`]: yaml(
          source('GitRepository', 'fleet', { url, ref: { branch: 'main' } }),
          kustomization('web', {
            path: './apps/web',
            sourceRef: { kind: 'GitRepository', name: 'fleet' },
          }),
        ),
      });
      const cluster = await render(r, { repoUrl });
      const web = producer(cluster, 'web');
      expect(web.source).toBe('GitRepository/flux-system/fleet');
      expect(web.skipped).toBeUndefined();
      expect(objectOf(cluster, 'web', 'ConfigMap', 'web').file).toBe('apps/web/cm.yaml');
    },
  );

  it.each([
    ['points at another repository', 'https://github.com/o/other', 'https://github.com/o/r'],
    ['is compared with no known repository URL', 'https://github.com/o/r', undefined],
  ])('skips a GitRepository whose url %s', async (_case, url, repoUrl) => {
    const r = fleet({
      ...app,
      [`${CLUSTER}/web.yaml`]: yaml(
        source('GitRepository', 'fleet', { url }),
        kustomization('web', {
          path: './apps/web',
          sourceRef: { kind: 'GitRepository', name: 'fleet' },
        }),
      ),
    });
    const cluster = await render(r, repoUrl === undefined ? {} : { repoUrl });
    expect(producer(cluster, 'web').skipped).toContain(
      'GitRepository/flux-system/fleet is not this repository',
    );
    expect(objectsOf(cluster, 'web')).toEqual([]);
  });

  it.each([
    ['GitRepository', 'other'],
    ['GitRepository', 'flux-system/other'],
    ['OCIRepository', 'other'],
    ['OCIRepository', 'flux-system/other'],
    ['Bucket', 'other'],
    ['Bucket', 'Bucket/flux-system/other'],
    ['ExternalArtifact', 'other'],
    ['ExternalArtifact', 'flux-system/other'],
  ])('renders a %s mapped with --source %s=DIR from that folder', async (kind, key) => {
    const mapped = repo({ 'deploy/cm.yaml': yaml(configMap('from-mapped')) });
    const r = fleet({
      [`${CLUSTER}/remote.yaml`]: yaml(
        source(kind, 'other', { url: 'https://example.com/other' }),
        kustomization('remote', { path: './deploy', sourceRef: { kind, name: 'other' } }),
      ),
    });
    const cluster = await render(r, { sources: [{ key, dir: mapped.dir }] });
    const remote = producer(cluster, 'remote');
    expect(remote.source).toBe(`${kind}/flux-system/other`);
    expect(remote.skipped).toBeUndefined();
    expect(remote.error).toBeUndefined();
    expect(objectOf(cluster, 'remote', 'ConfigMap', 'from-mapped').file).toBe(
      `${kind}/flux-system/other:deploy/cm.yaml`,
    );
  });

  it.each(['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact'])(
    'skips a Kustomization on an unmapped remote %s without reporting an error',
    async (kind) => {
      const mapped = repo({ 'deploy/cm.yaml': yaml(configMap('from-mapped')) });
      const r = fleet({
        ...app,
        [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
        [`${CLUSTER}/remote.yaml`]: yaml(
          source(kind, 'other', { url: 'https://example.com/other' }),
          kustomization('remote', { path: './deploy', sourceRef: { kind, name: 'other' } }),
        ),
      });
      // a mapping for a differently named source does not apply
      const cluster = await render(r, { sources: [{ key: 'unrelated', dir: mapped.dir }] });
      const remote = producer(cluster, 'remote');
      expect(remote.skipped).toBe(
        `source ${kind}/flux-system/other is not this repository and is not mapped (use --source other=DIR)`,
      );
      expect(remote.error).toBeUndefined();
      expect(cluster.errors).toEqual([]);
      expect(objectsOf(cluster, 'remote')).toEqual([]);
      expect(idsOf(cluster, 'web')).toEqual(['ConfigMap/web']);
    },
  );

  it('skips a Kustomization whose source is defined nowhere', async () => {
    const r = fleet({
      [`${CLUSTER}/remote.yaml`]: yaml(
        kustomization('remote', { sourceRef: { kind: 'OCIRepository', name: 'missing' } }),
      ),
    });
    const cluster = await render(r);
    expect(producer(cluster, 'remote').skipped).toBe(
      'source OCIRepository/flux-system/missing was not found',
    );
    expect(cluster.errors).toEqual([]);
  });

  it.each([
    [
      'the Kustomization namespace when sourceRef.namespace is absent',
      undefined,
      'team',
      'from-team',
    ],
    ['sourceRef.namespace when it is set', 'flux-system', 'flux-system', 'from-flux-system'],
  ])(
    'resolves the source in %s',
    async (_case, refNamespace, expectedNamespace, expectedObject) => {
      const team = repo({ 'deploy/cm.yaml': yaml(configMap('from-team')) });
      const system = repo({ 'deploy/cm.yaml': yaml(configMap('from-flux-system')) });
      const sourceRef: Record<string, string> = { kind: 'OCIRepository', name: 'shared' };
      if (refNamespace !== undefined) sourceRef['namespace'] = refNamespace;
      const r = fleet({
        [`${CLUSTER}/team.yaml`]: yaml(
          source('OCIRepository', 'shared', { url: 'oci://example.com/a' }, 'team'),
          source('OCIRepository', 'shared', { url: 'oci://example.com/b' }, 'flux-system'),
          kustomization('apps', { path: './deploy', sourceRef }, { namespace: 'team' }),
        ),
      });
      const cluster = await render(r, {
        sources: [
          { key: 'team/shared', dir: team.dir },
          { key: 'flux-system/shared', dir: system.dir },
        ],
      });
      expect(producer(cluster, 'apps', 'team').source).toBe(
        `OCIRepository/${expectedNamespace}/shared`,
      );
      expect(idsOf(cluster, 'apps', 'team')).toEqual([`ConfigMap/${expectedObject}`]);
    },
  );
});

// ---- 2. spec.path -------------------------------------------------------------------

describe('spec.path', () => {
  it('renders the source root when spec.path is absent', async () => {
    const pkg = repo({ 'cm.yaml': yaml(configMap('root')), 'sub/cm.yaml': yaml(configMap('sub')) });
    const r = fleet({
      [`${CLUSTER}/pkg.yaml`]: yaml(
        source('OCIRepository', 'pkg', { url: 'oci://example.com/pkg' }),
        kustomization('pkg', { sourceRef: { kind: 'OCIRepository', name: 'pkg' } }),
      ),
    });
    const cluster = await render(r, { sources: [{ key: 'pkg', dir: pkg.dir }] });
    expect(producer(cluster, 'pkg').path).toBe('.');
    expect(
      objectsOf(cluster, 'pkg')
        .map((o) => o.file)
        .sort(),
    ).toEqual([
      'OCIRepository/flux-system/pkg:cm.yaml',
      'OCIRepository/flux-system/pkg:sub/cm.yaml',
    ]);
  });

  it.each(['./apps/web', '/apps/web', 'apps/web/', 'apps/web', './apps/web/', 'apps/../apps/web'])(
    "reads spec.path '%s' as the folder apps/web",
    async (path) => {
      const r = fleet({
        'apps/web/cm.yaml': yaml(configMap('web')),
        'apps/other/cm.yaml': yaml(configMap('other')),
        [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path })),
      });
      const cluster = await render(r);
      expect(producer(cluster, 'web').error).toBeUndefined();
      expect(producer(cluster, 'web').path).toBe('apps/web');
      expect(objectsOf(cluster, 'web').map((o) => o.file)).toEqual(['apps/web/cm.yaml']);
    },
  );

  it.each([
    ['../outside', '../outside'],
    ['./apps/../../outside', '../outside'],
    ['..', '..'],
  ])(
    "refuses spec.path '%s' that leaves the source, as an error of that Kustomization only",
    async (path, shown) => {
      const r = fleet({
        'apps/web/cm.yaml': yaml(configMap('web')),
        [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
        [`${CLUSTER}/escape.yaml`]: yaml(kustomization('escape', { path })),
      });
      const cluster = await render(r);
      const message = `path '${shown}' leaves the source root`;
      expect(producer(cluster, 'escape').error).toBe(message);
      expect(cluster.errors).toEqual([
        {
          producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'escape' },
          file: `${CLUSTER}/escape.yaml`,
          message,
        },
      ]);
      expect(objectsOf(cluster, 'escape')).toEqual([]);
      expect(idsOf(cluster, 'web')).toEqual(['ConfigMap/web']);
    },
  );

  it('reports a spec.path through a symlinked folder as not found, since Flux artifacts drop symlinks', async () => {
    const r = fleet({
      'apps/web/cm.yaml': yaml(configMap('web')),
      'apps/linked': { symlink: 'web' },
      [`${CLUSTER}/linked.yaml`]: yaml(kustomization('linked', { path: './apps/linked' })),
    });
    const cluster = await render(r);
    expect(producer(cluster, 'linked').error).toBe("path 'apps/linked' not found");
    expect(errorsOf(cluster, 'linked')).toEqual(["path 'apps/linked' not found"]);
  });

  it('leaves symlinked files out of a generated kustomization, since Flux artifacts drop symlinks', async () => {
    const r = fleet({
      'apps/web/cm.yaml': yaml(configMap('web')),
      'apps/web/link.yaml': { symlink: '../shared/cm.yaml' },
      'apps/shared/cm.yaml': yaml(configMap('shared')),
      [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
    });
    const cluster = await render(r);
    expect(idsOf(cluster, 'web')).toEqual(['ConfigMap/web']);
  });

  it.each([
    ['a resource two levels up from a folder one level deep', 'bad', '../../outside'],
    ['a resource three levels up from a folder two levels deep', 'apps/bad', '../../../outside'],
  ])(
    "refuses a kustomization.yaml that references %s with 'leaves the source root'",
    async (_case, dir, ref) => {
      const r = fleet({
        [`${dir}/kustomization.yaml`]: kustomizeFile({ resources: [ref] }),
        [`${CLUSTER}/bad.yaml`]: yaml(kustomization('bad', { path: `./${dir}` })),
      });
      const cluster = await render(r);
      expect(producer(cluster, 'bad').error).toBe(`path '${ref}' leaves the source root`);
      expect(cluster.errors.find((e) => e.producer.name === 'bad')?.file).toBe(
        `${dir}/kustomization.yaml`,
      );
    },
  );

  it('refuses a kustomization.yaml whose base leaves the source root further down', async () => {
    const r = fleet({
      'apps/overlay/kustomization.yaml': kustomizeFile({ resources: ['../base'] }),
      'apps/base/kustomization.yaml': kustomizeFile({ resources: ['../../../etc'] }),
      [`${CLUSTER}/bad.yaml`]: yaml(kustomization('bad', { path: './apps/overlay' })),
    });
    const cluster = await render(r);
    expect(producer(cluster, 'bad').error).toBe("path '../../../etc' leaves the source root");
    expect(cluster.errors.find((e) => e.producer.name === 'bad')?.file).toBe(
      'apps/base/kustomization.yaml',
    );
  });

  it('refuses a remote resource in a kustomization.yaml unless remote bases are allowed', async () => {
    const url = 'https://127.0.0.1:9/o/r.git//deploy?ref=v1';
    const r = fleet({
      'apps/remote/kustomization.yaml': kustomizeFile({ resources: [url] }),
      [`${CLUSTER}/remote.yaml`]: yaml(kustomization('remote', { path: './apps/remote' })),
    });
    const refused = await render(r);
    expect(producer(refused, 'remote').error).toBe(
      `remote resource '${url}' is disabled (enable remote bases to allow it)`,
    );
    expect(refused.errors.find((e) => e.producer.name === 'remote')).toMatchObject({
      file: 'apps/remote/kustomization.yaml',
      code: 'remote-base-refused',
    });

    // allowed: kustomize itself tries (and, with nothing listening, fails) to fetch it
    const allowed = await render(r, { settings: { allowRemoteBases: true } });
    const error = producer(allowed, 'remote').error ?? '';
    expect(error).toMatch(/^kustomize build failed: /);
    expect(error).not.toContain('is disabled');
  });
});

// ---- 3. generated kustomization -----------------------------------------------------

describe('the kustomization Flux generates for a folder without one', () => {
  it('lists every .yaml and .yml file that parses, recursively, and ignores other files', async () => {
    const r = fleet({
      'apps/web/a.yaml': yaml(configMap('a')),
      'apps/web/b.yml': yaml(configMap('b'), configMap('b2')),
      'apps/web/nested/deep/c.yaml': yaml(configMap('c')),
      'apps/web/cm.json': JSON.stringify(configMap('json')),
      'apps/web/README.md': '# not: [yaml',
      'apps/web/notes.txt': 'key: [unclosed',
      'apps/web/yaml': yaml(configMap('no-extension')),
      [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
    });
    const cluster = await render(r);
    expect(producer(cluster, 'web').error).toBeUndefined();
    expect(
      objectsOf(cluster, 'web')
        .map((o) => `${objectMeta(o.manifest).name} ${o.file}`)
        .sort(),
    ).toEqual([
      'a apps/web/a.yaml',
      'b apps/web/b.yml',
      'b2 apps/web/b.yml',
      'c apps/web/nested/deep/c.yaml',
    ]);
  });

  it.each(['kustomization.yaml', 'kustomization.yml', 'Kustomization'])(
    'includes a subfolder with its own %s as one unit, its settings applying only to its files',
    async (fileName) => {
      const r = fleet({
        'apps/web/a.yaml': yaml(configMap('a')),
        [`apps/web/sub/${fileName}`]: kustomizeFile({
          namePrefix: 'sub-',
          resources: ['listed.yaml'],
        }),
        'apps/web/sub/listed.yaml': yaml(configMap('listed')),
        'apps/web/sub/unlisted.yaml': yaml(configMap('unlisted')),
        'apps/web/sub/deeper/d.yaml': yaml(configMap('deeper')),
        [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
      });
      const cluster = await render(r);
      expect(idsOf(cluster, 'web')).toEqual(['ConfigMap/a', 'ConfigMap/sub-listed']);
      expect(objectOf(cluster, 'web', 'ConfigMap', 'sub-listed').file).toBe(
        'apps/web/sub/listed.yaml',
      );
    },
  );

  it.each([
    ['an empty folder', {}, ['apps/empty']],
    ['a folder with no YAML files', { 'apps/empty/README.md': 'nothing here' }, []],
  ])('renders nothing, without error, for %s', async (_case, files: RepoFiles, dirs: string[]) => {
    const r = fleet({
      ...files,
      [`${CLUSTER}/empty.yaml`]: yaml(kustomization('empty', { path: './apps/empty' })),
    });
    for (const dir of dirs) mkdirSync(join(r.dir, dir), { recursive: true });
    const cluster = await render(r);
    const empty = producer(cluster, 'empty');
    expect(empty.error).toBeUndefined();
    expect(empty.skipped).toBeUndefined();
    expect(objectsOf(cluster, 'empty')).toEqual([]);
    expect(cluster.errors).toEqual([]);
  });

  it.each([
    ['a YAML syntax error', 'apps/web/bad.yaml', 'key: [unclosed\n'],
    ['a YAML syntax error in a nested .yml file', 'apps/web/nested/bad.yml', 'a: b: c\n'],
  ])('fails the Kustomization on a file with %s', async (_case, file, content) => {
    const r = fleet({
      'apps/web/good.yaml': yaml(configMap('good')),
      [file]: content,
      'apps/other/cm.yaml': yaml(configMap('other')),
      [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
      [`${CLUSTER}/other.yaml`]: yaml(kustomization('other', { path: './apps/other' })),
    });
    const cluster = await render(r);
    expect(producer(cluster, 'web').error).toMatch(
      new RegExp(`^failed to decode Kubernetes YAML from ${file}: `),
    );
    expect(cluster.errors.find((e) => e.producer.name === 'web')?.file).toBe(file);
    expect(objectsOf(cluster, 'web')).toEqual([]);
    expect(idsOf(cluster, 'other')).toEqual(['ConfigMap/other']);
  });
});

// ---- 4. ignore rules ----------------------------------------------------------------

describe('source ignore rules', () => {
  it('leaves out what the root .sourceignore names', async () => {
    const r = fleet({
      '.sourceignore': '# drafts\napps/web/draft.yaml\n*.local.yaml\n',
      'apps/web/cm.yaml': yaml(configMap('web')),
      'apps/web/draft.yaml': yaml(configMap('draft')),
      'apps/web/nested/dev.local.yaml': yaml(configMap('local')),
      [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
    });
    const cluster = await render(r);
    expect(idsOf(cluster, 'web')).toEqual(['ConfigMap/web']);
  });

  it('scopes a subfolder .sourceignore to that folder', async () => {
    const r = fleet({
      'apps/web/.sourceignore': 'skip.yaml\n/top.yaml\n',
      'apps/web/cm.yaml': yaml(configMap('web')),
      'apps/web/skip.yaml': yaml(configMap('web-skip')),
      'apps/web/nested/skip.yaml': yaml(configMap('web-nested-skip')),
      'apps/web/nested/top.yaml': yaml(configMap('web-nested-top')),
      'apps/web/top.yaml': yaml(configMap('web-top')),
      'apps/other/skip.yaml': yaml(configMap('other-skip')),
      'apps/other/top.yaml': yaml(configMap('other-top')),
      [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
      [`${CLUSTER}/other.yaml`]: yaml(kustomization('other', { path: './apps/other' })),
    });
    const cluster = await render(r);
    expect(idsOf(cluster, 'web')).toEqual(['ConfigMap/web', 'ConfigMap/web-nested-top']);
    expect(idsOf(cluster, 'other')).toEqual(['ConfigMap/other-skip', 'ConfigMap/other-top']);
  });

  it("keeps only apps/ for a GitRepository with spec.ignore '/*' then '!/apps/'", async () => {
    const r = fleet({
      'apps/web/cm.yaml': yaml(configMap('web')),
      'apps/api/cm.yaml': yaml(configMap('api')),
      'infra/cm.yaml': yaml(configMap('infra')),
      'root.yaml': yaml(configMap('root')),
      [`${CLUSTER}/only-apps.yaml`]: yaml(
        source('GitRepository', 'fleet', {
          url: 'https://github.com/o/r',
          ignore: '/*\n!/apps/\n',
        }),
        kustomization('only-apps', { sourceRef: { kind: 'GitRepository', name: 'fleet' } }),
        kustomization('infra', {
          path: './infra',
          sourceRef: { kind: 'GitRepository', name: 'fleet' },
        }),
      ),
    });
    const cluster = await render(r, { repoUrl: 'https://github.com/o/r' });
    expect(idsOf(cluster, 'only-apps')).toEqual(['ConfigMap/api', 'ConfigMap/web']);
    expect(producer(cluster, 'infra').error).toBe("path 'infra' not found");
  });

  const defaults: RepoFiles = {
    'apps/web/cm.yaml': yaml(configMap('web')),
    'apps/web/cloudbuild.yaml': yaml(configMap('cloudbuild')),
    'apps/web/.github/cm.yaml': yaml(configMap('github')),
    'apps/web/deep/.sops.yaml': yaml(configMap('sops')),
    'apps/web/deep/.flux.yaml': yaml(configMap('flux-yaml')),
    [`${CLUSTER}/web.yaml`]: yaml(
      source('GitRepository', 'fleet', { url: 'https://github.com/o/r' }),
      kustomization('web', {
        path: './apps/web',
        sourceRef: { kind: 'GitRepository', name: 'fleet' },
      }),
    ),
  };
  const everything = [
    'ConfigMap/cloudbuild',
    'ConfigMap/flux-yaml',
    'ConfigMap/github',
    'ConfigMap/sops',
    'ConfigMap/web',
  ];

  it.each([
    ['no ignore patterns exist', {}, undefined, ['ConfigMap/web']],
    ['a .sourceignore exists', { '.sourceignore': 'unrelated.txt\n' }, undefined, everything],
    [
      'a subfolder .sourceignore exists',
      { 'docs/.sourceignore': 'unrelated.txt\n' },
      undefined,
      everything,
    ],
    ['the GitRepository has spec.ignore', {}, 'unrelated.txt', everything],
  ])(
    'applies the default CI and extra exclusions only when %s',
    async (_case, extra: RepoFiles, specIgnore: string | undefined, expected: string[]) => {
      const files: RepoFiles = { ...defaults, ...extra };
      if (specIgnore !== undefined) {
        files[`${CLUSTER}/web.yaml`] = yaml(
          source('GitRepository', 'fleet', { url: 'https://github.com/o/r', ignore: specIgnore }),
          kustomization('web', {
            path: './apps/web',
            sourceRef: { kind: 'GitRepository', name: 'fleet' },
          }),
        );
      }
      const cluster = await render(fleet(files), { repoUrl: 'https://github.com/o/r' });
      expect(producer(cluster, 'web').error).toBeUndefined();
      expect(idsOf(cluster, 'web')).toEqual(expected);
    },
  );

  it.each([
    ['no ignore patterns exist', {}, { 'logo.png': undefined, '.gitattributes': undefined }],
    [
      'a .sourceignore exists',
      { '.sourceignore': 'unrelated.txt\n' },
      { 'logo.png': 'png', '.gitattributes': undefined },
    ],
  ])(
    'leaves VCS files out always and extension exclusions only when %s',
    async (_case, extra: RepoFiles, expected: Record<string, string | undefined>) => {
      const r = fleet({
        ...extra,
        'apps/files/kustomization.yaml': kustomizeFile({
          configMapGenerator: [
            { name: 'png', files: ['logo.png'], options: { disableNameSuffixHash: true } },
          ],
        }),
        'apps/files/logo.png': 'png',
        'apps/vcs/kustomization.yaml': kustomizeFile({
          configMapGenerator: [
            { name: 'vcs', files: ['.gitattributes'], options: { disableNameSuffixHash: true } },
          ],
        }),
        'apps/vcs/.gitattributes': '* text=auto',
        [`${CLUSTER}/files.yaml`]: yaml(
          kustomization('files', { path: './apps/files' }),
          kustomization('vcs', { path: './apps/vcs' }),
        ),
      });
      const cluster = await render(r);
      const png = expected['logo.png'];
      if (png === undefined) {
        expect(producer(cluster, 'files').error).toMatch(/^kustomize build failed: .*logo\.png/s);
      } else {
        expect(objectOf(cluster, 'files', 'ConfigMap', 'png').manifest['data']).toEqual({
          'logo.png': png,
        });
      }
      expect(producer(cluster, 'vcs').error).toMatch(/^kustomize build failed: .*\.gitattributes/s);
    },
  );

  it('re-includes a file inside an excluded folder', async () => {
    const r = fleet({
      '.sourceignore': '/apps/web/extra/\n!/apps/web/extra/keep.yaml\n',
      'apps/web/cm.yaml': yaml(configMap('web')),
      'apps/web/extra/keep.yaml': yaml(configMap('keep')),
      'apps/web/extra/drop.yaml': yaml(configMap('drop')),
      'apps/web/extra/more/drop.yaml': yaml(configMap('drop-more')),
      [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
    });
    const cluster = await render(r);
    expect(idsOf(cluster, 'web')).toEqual(['ConfigMap/keep', 'ConfigMap/web']);
    expect(objectOf(cluster, 'web', 'ConfigMap', 'keep').file).toBe('apps/web/extra/keep.yaml');
  });
});

// ---- 5. spec merge ------------------------------------------------------------------

describe('Flux spec fields merged into the build', () => {
  /** apps/base: a Deployment with two images, a ConfigMap, an images entry and a namespace. */
  const base: RepoFiles = {
    'apps/base/kustomization.yaml': kustomizeFile({
      namespace: 'base-ns',
      resources: ['deploy.yaml', 'cm.yaml'],
      images: [
        { name: 'nginx', newTag: '1.1' },
        { name: 'busybox', newName: 'mirror.example/busybox' },
      ],
    }),
    'apps/base/deploy.yaml': yaml(deployment('web', ['nginx:1.0', 'busybox:1.0', 'redis:7'])),
    'apps/base/cm.yaml': yaml(configMap('settings', { mode: 'base' })),
    'apps/components/extra/kustomization.yaml': stringify({
      apiVersion: 'kustomize.config.k8s.io/v1alpha1',
      kind: 'Component',
      resources: ['cm.yaml'],
      labels: [{ pairs: { component: 'extra' } }],
    }),
    'apps/components/extra/cm.yaml': yaml(configMap('extra')),
  };
  const DIGEST = 'sha256:0000000000000000000000000000000000000000000000000000000000000001';

  let cluster: RenderedCluster;
  beforeAll(async () => {
    const cases: Manifest[] = [
      kustomization('plain', { path: './apps/base' }),
      kustomization('target-ns', { path: './apps/base', targetNamespace: 'target' }),
      kustomization('patch-untargeted', {
        path: './apps/base',
        patches: [
          {
            patch: yaml({
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: 'web' },
              spec: { replicas: 3 },
            }),
          },
        ],
      }),
      kustomization('patch-targeted', {
        path: './apps/base',
        patches: [
          {
            patch: '- op: add\n  path: /metadata/labels\n  value: {patched: "yes"}\n',
            target: { kind: 'ConfigMap', name: 'settings' },
          },
        ],
      }),
      kustomization('image-newname', {
        path: './apps/base',
        images: [{ name: 'nginx', newName: 'registry.example/nginx' }],
      }),
      kustomization('image-newtag', {
        path: './apps/base',
        images: [{ name: 'nginx', newTag: '2.0' }],
      }),
      kustomization('image-added', {
        path: './apps/base',
        images: [{ name: 'redis', newTag: '7.2' }],
      }),
      kustomization('image-tag-keeps-newname', {
        path: './apps/base',
        images: [{ name: 'busybox', newTag: '1.36' }],
      }),
      kustomization('image-digest', {
        path: './apps/base',
        images: [{ name: 'nginx', digest: DIGEST }],
      }),
      kustomization('components', { path: './apps/base', components: ['../components/extra'] }),
      kustomization('prefix-suffix', {
        path: './apps/base',
        namePrefix: 'pre-',
        nameSuffix: '-suf',
      }),
      kustomization(
        'legacy-patches',
        {
          path: './apps/base',
          patchesStrategicMerge: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: 'web' },
              spec: { replicas: 5 },
            },
          ],
          patchesJson6902: [
            {
              target: { version: 'v1', kind: 'ConfigMap', name: 'settings' },
              patch: [{ op: 'replace', path: '/data/mode', value: '6902' }],
            },
          ],
        },
        { apiVersion: 'kustomize.toolkit.fluxcd.io/v1beta2' },
      ),
      kustomization('common-metadata', {
        path: './apps/base',
        components: ['../components/extra'],
        commonMetadata: { labels: { team: 'blue' }, annotations: { owner: 'blue-team' } },
      }),
      kustomization('remote-component', {
        path: './apps/base',
        components: ['https://github.com/o/r//components/x'],
      }),
    ];
    const r = fleet({ ...base, [`${CLUSTER}/cases.yaml`]: yaml(...cases) });
    cluster = await render(r);
  });

  const meta = (name: string, kind: string, object: string) =>
    objectMeta(objectOf(cluster, name, kind, object).manifest);
  const deploy = (name: string, object = 'web') => objectOf(cluster, name, 'Deployment', object);

  it('renders the base as written when no field is set', () => {
    expect(producer(cluster, 'plain').error).toBeUndefined();
    expect(meta('plain', 'Deployment', 'web').namespace).toBe('base-ns');
    expect(containerImages(deploy('plain'))).toEqual([
      'nginx:1.1',
      'mirror.example/busybox:1.0',
      'redis:7',
    ]);
  });

  it("puts every object in targetNamespace, overriding the kustomization's namespace", () => {
    expect(objectsOf(cluster, 'target-ns').map((o) => objectMeta(o.manifest).namespace)).toEqual([
      'target',
      'target',
    ]);
  });

  it('applies a patch without a target to the object it names', () => {
    expect(
      (deploy('patch-untargeted').manifest['spec'] as Record<string, unknown>)['replicas'],
    ).toBe(3);
  });

  it('applies a patch with a target only to the selected objects', () => {
    expect(meta('patch-targeted', 'ConfigMap', 'settings').labels['patched']).toBe('yes');
    expect(meta('patch-targeted', 'Deployment', 'web').labels['patched']).toBeUndefined();
  });

  it.each([
    [
      'keeps the existing newTag when only newName is overridden',
      'image-newname',
      ['registry.example/nginx:1.1', 'mirror.example/busybox:1.0', 'redis:7'],
    ],
    [
      "overrides an existing image entry's tag by name",
      'image-newtag',
      ['nginx:2.0', 'mirror.example/busybox:1.0', 'redis:7'],
    ],
    [
      'keeps the existing newName when only newTag is overridden',
      'image-tag-keeps-newname',
      ['nginx:1.1', 'mirror.example/busybox:1.36', 'redis:7'],
    ],
    [
      'adds an image entry the kustomization does not have',
      'image-added',
      ['nginx:1.1', 'mirror.example/busybox:1.0', 'redis:7.2'],
    ],
    [
      'replaces the tag with a digest',
      'image-digest',
      [`nginx@${DIGEST}`, 'mirror.example/busybox:1.0', 'redis:7'],
    ],
  ])('images: %s', (_case, name, images) => {
    expect(producer(cluster, name).error).toBeUndefined();
    expect(containerImages(deploy(name))).toEqual(images);
  });

  it('adds spec.components to the build', () => {
    expect(idsOf(cluster, 'components')).toEqual([
      'ConfigMap/extra',
      'ConfigMap/settings',
      'Deployment/web',
    ]);
    expect(meta('components', 'Deployment', 'web').labels['component']).toBe('extra');
  });

  it("refuses a remote component with Flux's message", () => {
    expect(producer(cluster, 'remote-component').error).toBe(
      "component path 'https://github.com/o/r//components/x' must be local and relative",
    );
    expect(objectsOf(cluster, 'remote-component')).toEqual([]);
  });

  it('applies namePrefix and nameSuffix to every object', () => {
    expect(idsOf(cluster, 'prefix-suffix')).toEqual([
      'ConfigMap/pre-settings-suf',
      'Deployment/pre-web-suf',
    ]);
  });

  it('applies patchesStrategicMerge and patchesJson6902 of a v1beta2 Kustomization', () => {
    expect(producer(cluster, 'legacy-patches').error).toBeUndefined();
    expect((deploy('legacy-patches').manifest['spec'] as Record<string, unknown>)['replicas']).toBe(
      5,
    );
    expect(objectOf(cluster, 'legacy-patches', 'ConfigMap', 'settings').manifest['data']).toEqual({
      mode: '6902',
    });
  });

  it('puts commonMetadata labels and annotations on every object', () => {
    const objects = objectsOf(cluster, 'common-metadata');
    expect(objects).toHaveLength(3);
    for (const o of objects) {
      expect(objectMeta(o.manifest).labels).toMatchObject({ team: 'blue' });
      expect(objectMeta(o.manifest).annotations).toEqual({ owner: 'blue-team' });
    }
  });

  it('puts the owner labels of its Kustomization on every object', () => {
    const owned = cluster.objects.filter((o) => o.producer.name !== 'flux-system');
    expect(owned.length).toBeGreaterThan(20);
    for (const o of [...owned, ...objectsOf(cluster, 'flux-system')]) {
      expect(objectMeta(o.manifest).labels).toMatchObject({
        [NAME_LABEL]: o.producer.name,
        [NAMESPACE_LABEL]: o.producer.namespace,
      });
    }
  });
});

// ---- 6. the repository is never modified --------------------------------------------

describe('the repository under review', () => {
  it('is byte for byte unchanged after a render that generates kustomizations and merges fields', async () => {
    const r = fleet({
      '.sourceignore': 'apps/web/ignored.yaml\n',
      'apps/web/cm.yaml': yaml(configMap('web')),
      'apps/web/ignored.yaml': yaml(configMap('ignored')),
      'apps/web/nested/cm.yaml': yaml(configMap('nested')),
      'apps/base/kustomization.yaml': kustomizeFile({
        resources: ['deploy.yaml'],
        images: [{ name: 'nginx', newTag: '1.1' }],
      }),
      'apps/base/deploy.yaml': yaml(deployment('web', ['nginx:1.0'])),
      'apps/overlay/kustomization.yaml': kustomizeFile({ resources: ['../base'] }),
      'apps/link.yaml': { symlink: 'web/cm.yaml' },
      [`${CLUSTER}/apps.yaml`]: yaml(
        kustomization('web', {
          path: './apps/web',
          namePrefix: 'p-',
          commonMetadata: { labels: { a: 'b' } },
        }),
        kustomization('overlay', {
          path: './apps/overlay',
          targetNamespace: 'apps',
          images: [{ name: 'nginx', newTag: '9.9' }],
          patches: [
            {
              patch: yaml({
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                metadata: { name: 'web' },
                spec: { replicas: 2 },
              }),
            },
          ],
        }),
        kustomization('root', {}),
      ),
    });
    const before = snapshot(r.dir);
    const cluster = await render(r);
    expect(snapshot(r.dir)).toEqual(before);
    // the render did generate and merge
    expect(idsOf(cluster, 'web')).toEqual(['ConfigMap/p-nested', 'ConfigMap/p-web']);
    expect(containerImages(objectOf(cluster, 'overlay', 'Deployment', 'web'))).toEqual([
      'nginx:9.9',
    ]);
    expect(Object.keys(before)).not.toContain('apps/web/kustomization.yaml');
  });
});

// ---- 7. file attribution and origin annotations -------------------------------------

describe('where rendered objects come from', () => {
  let cluster: RenderedCluster;
  beforeAll(async () => {
    const r = fleet({
      'apps/base/kustomization.yaml': kustomizeFile({ resources: ['deploy.yaml', 'cms'] }),
      'apps/base/deploy.yaml': yaml(deployment('web', ['nginx:1.0'])),
      'apps/base/cms/kustomization.yaml': kustomizeFile({ resources: ['cm.yaml'] }),
      'apps/base/cms/cm.yaml': yaml(configMap('base-cm')),
      'apps/overlay/kustomization.yaml': kustomizeFile({
        resources: ['../base', 'local.yaml'],
        configMapGenerator: [{ name: 'generated', literals: ['a=b'] }],
      }),
      'apps/overlay/local.yaml': yaml(configMap('local')),
      'apps/plain/cm.yaml': yaml(configMap('plain')),
      'apps/asks/kustomization.yaml': kustomizeFile({
        resources: ['cm.yaml'],
        buildMetadata: ['originAnnotations'],
      }),
      'apps/asks/cm.yaml': yaml(configMap('asks')),
      'apps/generated-only/kustomization.yaml': kustomizeFile({
        configMapGenerator: [
          { name: 'only', literals: ['a=b'], options: { disableNameSuffixHash: true } },
        ],
      }),
      [`${CLUSTER}/apps.yaml`]: yaml(
        kustomization('overlay', { path: './apps/overlay' }),
        kustomization('plain', { path: './apps/plain' }),
        kustomization('with-origin', {
          path: './apps/overlay',
          buildMetadata: ['originAnnotations'],
        }),
        kustomization('file-asks', { path: './apps/asks' }),
        kustomization('no-resources', { path: './apps/generated-only' }),
      ),
    });
    cluster = await render(r);
  });

  it.each([
    ['Deployment', 'web', 'apps/base/deploy.yaml'],
    ['ConfigMap', 'base-cm', 'apps/base/cms/cm.yaml'],
    ['ConfigMap', 'local', 'apps/overlay/local.yaml'],
  ])('attributes %s/%s to the repository file %s, through ../base', (kind, name, file) => {
    expect(objectOf(cluster, 'overlay', kind, name).file).toBe(file);
  });

  it('attributes objects of a generated kustomization to their files', () => {
    expect(objectOf(cluster, 'plain', 'ConfigMap', 'plain').file).toBe('apps/plain/cm.yaml');
  });

  it('attributes the bootstrap objects to their file in the cluster folder', () => {
    expect(objectOf(cluster, 'flux-system', 'Kustomization', 'overlay').file).toBe(
      `${CLUSTER}/apps.yaml`,
    );
    expect(objectOf(cluster, 'flux-system', 'GitRepository', 'flux-system').file).toBe(
      `${CLUSTER}/flux-system.yaml`,
    );
  });

  it('gives no file for an object made by a generator', () => {
    expect(
      objectsOf(cluster, 'overlay').find((o) =>
        objectMeta(o.manifest).name.startsWith('generated-'),
      )?.file,
    ).toBeUndefined();
  });

  it('does not leak the origin annotation into manifests', () => {
    for (const o of [
      ...objectsOf(cluster, 'overlay'),
      ...objectsOf(cluster, 'plain'),
      ...objectsOf(cluster, 'flux-system'),
    ]) {
      expect(objectMeta(o.manifest).annotations).not.toHaveProperty(ORIGIN);
    }
    expect(
      objectMeta(objectOf(cluster, 'plain', 'ConfigMap', 'plain').manifest).annotations,
    ).toEqual({});
  });

  it.each([
    [
      'spec.buildMetadata asks for originAnnotations',
      ['with-origin', 'Deployment', 'web'],
      'path: ../base/deploy.yaml',
      'apps/base/deploy.yaml',
    ],
    [
      "the kustomization file's own buildMetadata asks for them",
      ['file-asks', 'ConfigMap', 'asks'],
      'path: cm.yaml',
      'apps/asks/cm.yaml',
    ],
    [
      'a kustomization file has no resources (Flux turns them on to avoid an empty build)',
      ['no-resources', 'ConfigMap', 'only'],
      'configuredIn: kustomization.yaml',
      undefined,
    ],
  ])(
    'keeps the origin annotation, as Flux does, when %s',
    (_case, [name, kind, object], origin, file) => {
      const rendered = objectOf(cluster, name!, kind!, object!);
      expect(objectMeta(rendered.manifest).annotations[ORIGIN]).toContain(origin);
      expect(rendered.file).toBe(file);
    },
  );
});

// ---- 8. rendering a git revision ----------------------------------------------------

describe('rendering a git revision', () => {
  let r: TestRepo;
  const shas: string[] = [];
  const webFile = (version: string): string => yaml(configMap('web', { version }));

  beforeAll(() => {
    r = fleet(
      {
        'apps/web/cm.yaml': webFile('one'),
        [`${CLUSTER}/web.yaml`]: yaml(kustomization('web', { path: './apps/web' })),
      },
      { git: true },
    );
    shas.push(r.commit('one'));
    r.write({
      'apps/web/cm.yaml': webFile('two'),
      'apps/web/added.yaml': yaml(configMap('added')),
    });
    shas.push(r.commit('two'));
    // uncommitted work-tree edits: a changed file, a new file, a removed one
    r.write({
      'apps/web/cm.yaml': webFile('dirty'),
      'apps/web/untracked.yaml': yaml(configMap('untracked')),
    });
    r.write({ 'apps/web/added.yaml': yaml(configMap('added-dirty')) });
  });

  const webData = (cluster: RenderedCluster) =>
    objectOf(cluster, 'web', 'ConfigMap', 'web').manifest['data'];

  it.each([
    ['the first commit', 0, 'one', ['ConfigMap/web']],
    ['the second commit', 1, 'two', ['ConfigMap/added', 'ConfigMap/web']],
  ])(
    'renders %s as committed, whatever the work tree holds',
    async (_case, index, version, ids) => {
      const cluster = await render(r, { rev: shas[index]! });
      expect(webData(cluster)).toEqual({ version });
      expect(idsOf(cluster, 'web')).toEqual(ids);
    },
  );

  it('renders a revision named by a ref', async () => {
    const cluster = await render(r, { rev: 'HEAD~1' });
    expect(webData(cluster)).toEqual({ version: 'one' });
  });

  it('renders the work tree, uncommitted edits included, without a revision', async () => {
    const cluster = await render(r);
    expect(webData(cluster)).toEqual({ version: 'dirty' });
    expect(idsOf(cluster, 'web')).toEqual([
      'ConfigMap/added-dirty',
      'ConfigMap/untracked',
      'ConfigMap/web',
    ]);
  });
});
