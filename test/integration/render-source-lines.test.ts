/**
 * The line of each rendered object's document in its source file, end to end with real
 * kustomize through the builtin engine. Kustomize names only the file, so the line is
 * found by kind and name, and left out when the file does not tell which document it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { objectMeta, type RenderedCluster, type RenderedObject } from '../../src/model/render.js';
import { builtinEngine } from '../support/render.js';
import { bootstrap, makeRepo, type TestRepo } from '../support/repo.js';

const CLUSTER = 'clusters/prod';

function kustomization(name: string, path: string, spec: Record<string, unknown> = {}): string {
  return stringify({
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      interval: '10m',
      path,
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      ...spec,
    },
  });
}

/** Written out by hand so the line of every document can be read off the file. */
const BASE_ALL = `apiVersion: v1
kind: ConfigMap
metadata:
  name: first
data:
  key: one
---
apiVersion: v1
kind: Service
metadata:
  name: first
spec:
  ports:
    - port: 80
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: second
`;

const OVERLAY_LOCAL = `# what the overlay adds
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: local
`;

/** `app` and `app-extra` both fit in `pre-app-extra`; `twice` is in the file twice. */
const CLASHING = `apiVersion: v1
kind: ConfigMap
metadata:
  name: app
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-extra
---
apiVersion: v1
kind: Secret
metadata:
  name: twice
  namespace: one
---
apiVersion: v1
kind: Secret
metadata:
  name: twice
  namespace: two
---
apiVersion: v1
kind: Service
metadata:
  name: svc
`;

/** The second name only reads `prod-settings` after substitution, which the first fits. */
const SUBSTITUTED = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: \${env}-settings
`;

const kustomizeFile = (fields: Record<string, unknown>): string =>
  stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', ...fields });

let repo: TestRepo;
let cluster: RenderedCluster;

beforeAll(async () => {
  repo = makeRepo({
    [`${CLUSTER}/flux-system.yaml`]: bootstrap(`./${CLUSTER}`),
    [`${CLUSTER}/apps.yaml`]: [
      kustomization('overlay', './apps/overlay'),
      kustomization('prefixed', './apps/overlay', { namePrefix: 'pre-', nameSuffix: '-suf' }),
      kustomization('clashing', './apps/clashing'),
      kustomization('substituted', './apps/substituted', {
        postBuild: { substitute: { env: 'prod' } },
      }),
    ].join('---\n'),
    'apps/base/kustomization.yaml': kustomizeFile({ resources: ['all.yaml'] }),
    'apps/base/all.yaml': BASE_ALL,
    'apps/overlay/kustomization.yaml': kustomizeFile({
      resources: ['../base', 'local.yaml'],
      configMapGenerator: [{ name: 'generated', literals: ['a=b'] }],
    }),
    'apps/overlay/local.yaml': OVERLAY_LOCAL,
    'apps/clashing/kustomization.yaml': kustomizeFile({
      namePrefix: 'pre-',
      resources: ['all.yaml'],
      patches: [
        {
          target: { kind: 'Service', name: 'svc' },
          patch: '- op: replace\n  path: /metadata/name\n  value: renamed\n',
        },
      ],
    }),
    'apps/clashing/all.yaml': CLASHING,
    'apps/substituted/cms.yaml': SUBSTITUTED,
  });
  cluster = await builtinEngine().render({ repoDir: repo.dir, entry: CLUSTER, sources: [] });
});

afterAll(() => repo.remove());

function objectOf(
  producer: string,
  kind: string,
  name: string,
  namespace?: string,
): RenderedObject {
  const found = cluster.objects.filter((o) => {
    const meta = objectMeta(o.manifest);
    return (
      o.producer.name === producer &&
      meta.kind === kind &&
      meta.name === name &&
      (namespace === undefined || meta.namespace === namespace)
    );
  });
  expect(found, `${producer}: ${kind}/${name}`).toHaveLength(1);
  return found[0]!;
}

const where = (o: RenderedObject) => ({ file: o.file, line: o.line });

describe('the line of a rendered object in its source file', () => {
  it('renders every Kustomization under test without errors', () => {
    expect(cluster.errors).toEqual([]);
  });

  it.each([
    ['a ConfigMap first in a file of three', 'ConfigMap', 'first', 1],
    ['a Service of the same name, told apart by kind', 'Service', 'first', 8],
    ['the last document of the file', 'ConfigMap', 'second', 16],
  ])('gives the line of %s, reached through ../base', (_case, kind, name, line) => {
    expect(where(objectOf('overlay', kind, name))).toEqual({ file: 'apps/base/all.yaml', line });
  });

  it('gives the line where the document starts, after a leading comment and separator', () => {
    expect(where(objectOf('overlay', 'ConfigMap', 'local'))).toEqual({
      file: 'apps/overlay/local.yaml',
      line: 3,
    });
  });

  it('gives the line of the bootstrap Kustomization, second in its file', () => {
    expect(where(objectOf('flux-system', 'Kustomization', 'flux-system'))).toEqual({
      file: `${CLUSTER}/flux-system.yaml`,
      line: 12,
    });
  });

  it.each([
    ['ConfigMap', 'pre-first-suf', 1],
    ['Service', 'pre-first-suf', 8],
    ['ConfigMap', 'pre-second-suf', 16],
  ])('finds %s/%s under its namePrefix and nameSuffix at line %i', (kind, name, line) => {
    expect(where(objectOf('prefixed', kind, name))).toEqual({ file: 'apps/base/all.yaml', line });
  });

  it('falls back to the only document of its kind when a patch renamed the object', () => {
    expect(where(objectOf('clashing', 'Service', 'pre-renamed'))).toEqual({
      file: 'apps/clashing/all.yaml',
      line: 23,
    });
  });

  it('finds an object by its name before post-build substitution', () => {
    expect(where(objectOf('substituted', 'ConfigMap', 'prod-settings'))).toEqual({
      file: 'apps/substituted/cms.yaml',
      line: 6,
    });
  });

  it('finds pre-app, which only one name in the file fits', () => {
    expect(where(objectOf('clashing', 'ConfigMap', 'pre-app'))).toEqual({
      file: 'apps/clashing/all.yaml',
      line: 1,
    });
  });

  it.each([
    [
      'ConfigMap pre-app-extra, which both app and app-extra fit',
      'ConfigMap',
      'pre-app-extra',
      undefined,
    ],
    ['Secret pre-twice in one, named the same twice in the file', 'Secret', 'pre-twice', 'one'],
    ['Secret pre-twice in two, named the same twice in the file', 'Secret', 'pre-twice', 'two'],
  ])('gives the file but no line for %s', (_case, kind, name, namespace) => {
    const object = objectOf('clashing', kind, name, namespace);
    expect(object.file).toBe('apps/clashing/all.yaml');
    expect(object).not.toHaveProperty('line');
  });

  it('gives neither file nor line for an object made by a configMapGenerator', () => {
    const generated = cluster.objects.filter(
      (o) => o.producer.name === 'overlay' && objectMeta(o.manifest).name.startsWith('generated-'),
    );
    expect(generated).toHaveLength(1);
    expect(generated[0]).not.toHaveProperty('file');
    expect(generated[0]).not.toHaveProperty('line');
  });
});
