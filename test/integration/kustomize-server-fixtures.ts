/**
 * Small kustomizations for comparing kustomize-server with `kustomize build`: each kustomize
 * feature fluxlens meets (resources, components, patches, generators with a hash, namespace,
 * images, deprecated fields), each way a build fails (a missing resource, invalid YAML, Helm
 * charts with plugins off), a kustomization with an OpenAPI schema of its own, an exec
 * plugin, and plugins that sleep, to stand for a stuck build.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const deployment = (name: string, image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
    spec:
      containers:
        - name: app
          image: ${image}
        - name: sidecar
          image: busybox:1.36
`;

const service = (name: string) => `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector: { app: ${name} }
  ports: [{ port: 80 }]
`;

/** A schema that makes MyKind's containers merge by name, as the built-in one does for Pods. */
const OWN_SCHEMA = JSON.stringify({
  definitions: {
    'v1alpha1.MyKind': {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          properties: {
            containers: {
              type: 'array',
              items: { type: 'object', properties: { name: { type: 'string' } } },
              'x-kubernetes-patch-merge-key': 'name',
              'x-kubernetes-patch-strategy': 'merge',
            },
          },
        },
      },
      'x-kubernetes-group-version-kind': [
        { group: 'example.com', kind: 'MyKind', version: 'v1alpha1' },
      ],
    },
  },
});

const MY_KIND = `apiVersion: example.com/v1alpha1
kind: MyKind
metadata:
  name: mine
spec:
  containers: [{ name: a, image: a:1 }, { name: b, image: b:1 }]
`;

const MY_KIND_PATCH = `apiVersion: example.com/v1alpha1
kind: MyKind
metadata:
  name: mine
spec:
  containers: [{ name: b, image: b:2 }]
`;

/** A KRM exec function that prints one ConfigMap, after `before` (shell) has run. */
function plugin(name: string, before = ''): Record<string, string> {
  return {
    'kustomization.yaml': 'generators: [generator.yaml]\n',
    'generator.yaml': `apiVersion: fluxlens.test/v1
kind: Generator
metadata:
  name: ${name}
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: ./generate.sh
`,
    'generate.sh': `#!/bin/sh
${before}
cat <<'END'
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata: { name: ${name} }
    data: { from: plugin }
END
`,
  };
}

/** Each fixture: its files, and whether it is built with exec plugins. */
export const FIXTURES: Record<string, { files: Record<string, string>; plugins?: boolean }> = {
  resources: {
    files: {
      'kustomization.yaml': `namespace: shop
namePrefix: eu-
labels: [{ pairs: { team: checkout }, includeSelectors: false }]
images: [{ name: nginx, newName: registry.example.com/nginx, newTag: '1.27' }]
resources: [deployment.yaml, service.yaml]
`,
      'deployment.yaml': deployment('web', 'nginx:1.25'),
      'service.yaml': service('web'),
    },
  },
  components: {
    files: {
      'overlay/kustomization.yaml': 'resources: [../base]\ncomponents: [../tracing]\n',
      'base/kustomization.yaml': 'resources: [deployment.yaml]\n',
      'base/deployment.yaml': deployment('api', 'ghcr.io/example/api:2.0.0'),
      'tracing/kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
  - target: { kind: Deployment }
    patch: |
      - op: add
        path: /metadata/annotations
        value: { tracing: enabled }
`,
    },
  },
  patches: {
    files: {
      'kustomization.yaml': `resources: [deployment.yaml]
patches:
  - path: replicas.yaml
  - target: { kind: Deployment, name: worker }
    patch: |-
      - op: replace
        path: /spec/template/spec/containers/1/image
        value: busybox:1.37
`,
      'deployment.yaml': deployment('worker', 'ghcr.io/example/worker:1.0.0'),
      'replicas.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: { name: worker }
spec:
  replicas: 3
  template:
    spec:
      containers: [{ name: app, env: [{ name: MODE, value: batch }] }]
`,
    },
  },
  generators: {
    files: {
      'kustomization.yaml': `namespace: config
configMapGenerator:
  - name: settings
    files: [app.properties]
    literals: [LOG_LEVEL=debug]
  - name: from-env
    envs: [vars.env]
secretGenerator:
  - name: credentials
    literals: [user=admin]
generatorOptions:
  labels: { generated: 'yes' }
resources: [deployment.yaml]
`,
      'app.properties': 'color=blue\nsize=large\n',
      'vars.env': 'REGION=eu-west-1\n',
      'deployment.yaml': deployment('reader', 'ghcr.io/example/reader:1.0.0').replace(
        '          image: ghcr.io/example/reader:1.0.0\n',
        '          image: ghcr.io/example/reader:1.0.0\n          envFrom: [{ configMapRef: { name: settings } }]\n',
      ),
    },
  },
  'deprecated fields': {
    files: {
      'kustomization.yaml': `commonLabels: { owner: legacy }
bases: [base]
patchesStrategicMerge: [patch.yaml]
`,
      'base/kustomization.yaml': 'resources: [service.yaml]\n',
      'base/service.yaml': service('legacy'),
      'patch.yaml':
        'apiVersion: v1\nkind: Service\nmetadata: { name: legacy, labels: { patched: "true" } }\n',
    },
  },
  'managed-by label and origins': {
    files: {
      'kustomization.yaml':
        'buildMetadata: [managedByLabel, originAnnotations]\nresources: [service.yaml]\n',
      'service.yaml': service('labelled'),
    },
  },
  'no objects': { files: { 'kustomization.yaml': 'resources: [empty.yaml]\n', 'empty.yaml': '' } },
  'own OpenAPI schema': {
    files: {
      'kustomization.yaml':
        'openapi: { path: schema.json }\nresources: [mine.yaml]\npatches: [{ path: patch.yaml }]\n',
      'schema.json': OWN_SCHEMA,
      'mine.yaml': MY_KIND,
      'patch.yaml': MY_KIND_PATCH,
    },
  },
  // Built after the one above, in the same process: the schema must not stay behind.
  'a kind without a schema, patched': {
    files: {
      'kustomization.yaml': 'resources: [mine.yaml]\npatches: [{ path: patch.yaml }]\n',
      'mine.yaml': MY_KIND,
      'patch.yaml': MY_KIND_PATCH,
    },
  },
  'own OpenAPI schema in a base': {
    files: {
      'kustomization.yaml': 'resources: [base, deployment.yaml]\npatches: [{ path: patch.yaml }]\n',
      'base/kustomization.yaml': 'openapi: { version: v1.21.2 }\nresources: [mine.yaml]\n',
      'base/mine.yaml': MY_KIND,
      'deployment.yaml': deployment('beside', 'nginx:1.25'),
      'patch.yaml': MY_KIND_PATCH,
    },
  },
  'exec plugin': { files: plugin('generated'), plugins: true },
  'a missing resource': {
    files: {
      'kustomization.yaml': 'resources: [service.yaml, missing.yaml]\n',
      'service.yaml': service('x'),
    },
  },
  'deprecated fields and a missing resource': {
    files: {
      'kustomization.yaml': 'commonLabels: { a: b }\nvars: []\nresources: [missing.yaml]\n',
    },
  },
  'invalid YAML': {
    files: {
      'kustomization.yaml': 'resources: [bad.yaml]\n',
      'bad.yaml': 'kind: [unclosed\n  name: x: y\n',
    },
  },
  'an unknown kustomization field': { files: { 'kustomization.yaml': 'resourcez: [a.yaml]\n' } },
  'Helm charts with plugins off': {
    files: {
      'kustomization.yaml':
        'helmCharts:\n  - name: podinfo\n    repo: https://stefanprodan.github.io/podinfo\n    version: 6.0.0\n',
    },
  },
  'Helm charts with plugins on': {
    files: {
      'kustomization.yaml':
        'helmCharts:\n  - name: local\n    version: 0.1.0\n    releaseName: local\n',
      'charts/local/Chart.yaml': 'apiVersion: v2\nname: local\nversion: 0.1.0\n',
      'charts/local/values.yaml': 'greeting: hello\n',
      'charts/local/templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: {{ .Release.Name }} }\ndata: { greeting: {{ .Values.greeting }} }\n',
    },
    plugins: true,
  },
};

/**
 * A plugin that writes `<pid of its shell> <pid of the process that ran it>` to `pids`, then
 * sleeps `seconds` unless `slept` exists, which it then creates: its first run stands for a
 * stuck build, and the next one finishes at once.
 */
export function sleepingPlugin(root: string, name: string, seconds: number): string {
  const dir = join(root, name);
  const before = `echo "$$ $PPID" > '${dir}/pids'
if [ ! -e '${dir}/slept' ]; then touch '${dir}/slept'; sleep ${seconds}; fi`;
  writeFiles(dir, plugin(name, before));
  return dir;
}

export function writeFixtures(root: string): void {
  for (const [name, { files }] of Object.entries(FIXTURES)) writeFiles(join(root, name), files);
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    if (file.endsWith('.sh')) chmodSync(file, 0o755);
  }
}

/** The folder of a fixture; the path of the kustomization to build within it. */
export function fixtureDir(root: string, name: string): string {
  return name === 'components' ? join(root, name, 'overlay') : join(root, name);
}
