/**
 * Issue 11, point 6: YAML nested a hundred thousand levels deep and billion-laughs documents,
 * wherever a pull request can put them (a Kustomization's folder, a file kustomization.yaml
 * lists, HelmRelease values, the entry folder itself, `.fluxlens.yaml`), through `fluxlens
 * render` and `fluxlens diff` with real kustomize and helm. The producer that reads the file
 * fails with an error naming it; everything else renders, and the exit codes stay as
 * documented. A policy past the bounds is a usage error naming the file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli, type CliRun } from '../support/cli.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream,
  type RepoFiles,
  type TestRepo,
} from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const LEVELS = 100_000;
const DEEP_FLOW = `data:\n  deep: ${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}\n`;
const DEEP_BLOCK = `data:\n  deep:\n${'- '.repeat(LEVELS)}x\n`;

function billionLaughs(): string {
  const lines = [`l0: &l0 [${Array(9).fill('lol').join(', ')}]`];
  for (let i = 1; i <= 9; i++)
    lines.push(
      `l${i}: &l${i} [${Array(9)
        .fill(`*l${i - 1}`)
        .join(', ')}]`,
    );
  return `${lines.join('\n')}\n`;
}

/** A ConfigMap whose body is `bomb`, as a file of a Kustomization's folder. */
const bombMap = (name: string, bomb: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: apps\n${bomb}`;

const configMap = (name: string): string =>
  stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'apps' },
    data: { a: '1' },
  });

function helmRelease(
  name: string,
  chart: string,
  spec: Record<string, unknown> = {},
  chartSpec: Record<string, unknown> = {},
): string {
  const sourceRef = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };
  return stringify({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name, namespace: 'apps' },
    spec: { interval: '1h', chart: { spec: { chart, sourceRef, ...chartSpec } }, ...spec },
  });
}

const TEMPLATE =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  message: {{ .Values.message | quote }}\n';

/** `hello` is a plain chart; `laughing` has a billion laughs for its values.yaml. */
const CHARTS: RepoFiles = {
  'charts/hello/Chart.yaml': 'apiVersion: v2\nname: hello\nversion: 1.0.0\n',
  'charts/hello/values.yaml': 'message: hello\n',
  'charts/hello/deep-values.yaml': `message: ${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}\n`,
  'charts/hello/templates/cm.yaml': TEMPLATE,
  'charts/laughing/Chart.yaml': 'apiVersion: v2\nname: laughing\nversion: 1.0.0\n',
  'charts/laughing/values.yaml': billionLaughs(),
  'charts/laughing/templates/cm.yaml': TEMPLATE,
};

/** One Kustomization per place a bomb can sit, and `infra`, which has none. */
const FLEET: RepoFiles = {
  ...CHARTS,
  'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/apps.yaml': yamlStream(
    ...['flow', 'block', 'laughs', 'listed', 'values', 'chart', 'infra'].map((name) =>
      fluxKustomization(name, `./${name}`),
    ),
  ),
  'flow/bomb.yaml': bombMap('flow', DEEP_FLOW),
  'flow/cm.yaml': configMap('flow'),
  'block/bomb.yaml': bombMap('block', DEEP_BLOCK),
  'laughs/bomb.yaml': bombMap('laughs', billionLaughs()),
  'listed/kustomization.yaml': 'resources: [cm.yaml, bomb.yaml]\n',
  'listed/cm.yaml': configMap('listed'),
  'listed/bomb.yaml': bombMap('listed', billionLaughs()),
  'values/release.yaml': helmRelease('hello', './charts/hello', {
    valuesFrom: [{ kind: 'ConfigMap', name: 'hello-values' }],
  }),
  'values/values.yaml': stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'hello-values', namespace: 'apps' },
    data: { 'values.yaml': `message: ${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}\n` },
  }),
  'chart/releases.yaml': [
    helmRelease('laughing', './charts/laughing'),
    helmRelease(
      'deep-file',
      './charts/hello',
      {},
      { valuesFiles: ['charts/hello/deep-values.yaml'] },
    ),
  ].join('---\n'),
  'infra/cm.yaml': configMap('infra'),
};

interface RenderJson {
  objects: Array<{ producer: { name: string }; manifest: { metadata: { name: string } } }>;
  errors: Array<{ producer: { kind: string; name: string }; file?: string; message: string }>;
}

async function render(files: RepoFiles): Promise<{ run: CliRun; json: RenderJson }> {
  const repo = makeRepo(files);
  repos.push(repo);
  const run = await runCli([
    'render',
    '--repo',
    repo.dir,
    '--path',
    'clusters/prod',
    '--output',
    'json',
  ]);
  const json = (
    run.code === 0 ? JSON.parse(run.stdout) : { objects: [], errors: [] }
  ) as RenderJson;
  return { run, json };
}

const rendered = (json: RenderJson): string[] =>
  json.objects.map((o) => `${o.producer.name}:${o.manifest.metadata.name}`).sort();

const errorOf = (json: RenderJson, producer: string) =>
  json.errors.filter((e) => e.producer.name === producer);

describe('YAML bombs in a Kustomization folder, through fluxlens render', () => {
  let result: { run: CliRun; json: RenderJson };
  const renderFleet = async () => (result ??= await render(FLEET));

  it('exits 0 and never speaks of the call stack', async () => {
    const { run } = await renderFleet();
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/call stack|Excessive alias count/);
    expect(run.code).toBe(0);
  });

  it.each([
    [
      'flow',
      'flow/bomb.yaml',
      /^failed to decode Kubernetes YAML from flow\/bomb\.yaml: nesting deeper than 256 levels at line 7$/,
    ],
    [
      'block',
      'block/bomb.yaml',
      /^failed to decode Kubernetes YAML from block\/bomb\.yaml: nesting deeper than 256 levels/,
    ],
    [
      'laughs',
      'laughs/bomb.yaml',
      /^failed to decode Kubernetes YAML from laughs\/bomb\.yaml: more than 1000 aliases$/,
    ],
    ['listed', 'listed/bomb.yaml', /^listed\/bomb\.yaml: more than 1000 aliases$/],
  ])('fails the Kustomization %s with an error that names %s', async (producer, file, message) => {
    const { json } = await renderFleet();
    expect(errorOf(json, producer)).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: producer },
        file,
        message: expect.stringMatching(message),
      },
    ]);
  });

  it.each([
    ['hello', /'apps\/hello-values' with key 'values\.yaml': .*nesting deeper than 256 levels/],
    ['deep-file', /values file '.*deep-values\.yaml' .*nesting deeper than 256 levels/],
    ['laughing', /values\.yaml.*excessive aliasing/],
  ])('fails the HelmRelease %s, naming where its values are', async (release, message) => {
    const { json } = await renderFleet();
    expect(errorOf(json, release).map((e) => e.message)).toEqual([expect.stringMatching(message)]);
  });

  it('renders every producer without a bomb', async () => {
    const { json } = await renderFleet();
    const kustomizations = ['block', 'chart', 'flow', 'flux-system', 'infra', 'laughs', 'listed'];
    expect(rendered(json)).toEqual([
      'chart:deep-file',
      'chart:laughing',
      ...[...kustomizations, 'flux-system', 'values'].sort().map((name) => `flux-system:${name}`),
      'infra:infra',
      'values:hello',
      'values:hello-values',
    ]);
  });
});

describe('a YAML bomb at the top of the entry folder, which discovery reads', () => {
  it.each([
    ['nesting 100,000 levels deep', DEEP_FLOW, /: nesting deeper than 256 levels at line 7$/],
    ['a billion laughs', billionLaughs(), /: more than 1000 aliases$/],
    ['an alias with no anchor', 'data: *nowhere\n', /: an alias with no anchor before it$/],
  ])(
    'fails the bootstrap Kustomization on %s, naming the file, and renders the rest',
    async (_, bomb, message) => {
      const { run, json } = await render({
        'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/apps.yaml': yamlStream(fluxKustomization('infra', './infra')),
        'clusters/prod/bomb.yaml': bombMap('bomb', bomb),
        'infra/cm.yaml': configMap('infra'),
      });
      expect(run.code).toBe(0);
      expect(json.errors).toEqual([
        {
          producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
          file: 'clusters/prod/bomb.yaml',
          message: expect.stringMatching(message),
        },
      ]);
      expect(rendered(json)).toEqual(['infra:infra']);
    },
  );
});

/** An object nested as deep as fluxlens reads (256 levels): the root, `spec`, then 254 more. */
function deepestObject(): string {
  const levels = 254;
  const lines = ['apiVersion: example.com/v1', 'kind: Deep', 'metadata:', '  name: deep'];
  lines.push('  namespace: apps', 'spec:');
  for (let i = 0; i < levels; i++) lines.push(`${' '.repeat(i + 1)}a:`);
  lines[lines.length - 1] += ' ${COLOR}';
  return `${lines.join('\n')}\n`;
}

describe('YAML bombs and the deepest YAML, through fluxlens diff', () => {
  let repo: TestRepo;
  const heads: Record<string, string> = {};
  const diff = (head: string, ...args: string[]) =>
    runCli(['diff', '--repo', repo.dir, '--base', heads['base'] ?? '', '--head', head, ...args]);

  const infra = fluxKustomization('infra', './infra');
  (infra['spec'] as Record<string, unknown>)['postBuild'] = { substitute: { COLOR: 'blue' } };

  it('builds a base and heads that add a bomb, or the deepest object fluxlens reads', () => {
    repo = makeRepo(
      {
        'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/apps.yaml': yamlStream(fluxKustomization('flow', './flow'), infra),
        'flow/cm.yaml': configMap('flow'),
        'infra/cm.yaml': configMap('infra'),
      },
      { git: true },
    );
    repos.push(repo);
    heads['base'] = repo.commit('base');
    repo.write({ 'flow/bomb.yaml': bombMap('flow-bomb', DEEP_FLOW) });
    heads['bomb'] = repo.commit('a bomb');
    repo.write({ 'flow/bomb.yaml': bombMap('flow-bomb', 'data: {a: "1"}\n') });
    repo.write({ 'infra/deep.yaml': deepestObject() });
    heads['deepest'] = repo.commit('the deepest object');
    expect(Object.keys(heads)).toHaveLength(3);
  });

  it('exits 1 on the render error a bomb introduces, 0 with --fail-on never', async () => {
    const run = await diff(heads['bomb'] ?? '', '--format', 'json');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/call stack|Excessive alias count/);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout) as {
      findings: Array<{ rule: string; resource: { name: string }; file?: string }>;
    };
    expect(result.findings.map((f) => [f.rule, f.resource.name, f.file])).toEqual([
      ['render-error-introduced', 'flow', 'flow/bomb.yaml'],
    ]);
    expect((await diff(heads['bomb'] ?? '', '--fail-on', 'never')).code).toBe(0);
  });

  it.each(['markdown', 'json', 'text', 'html'])(
    'shows the deepest object fluxlens reads in the %s report',
    async (format) => {
      const run = await diff(heads['deepest'] ?? '', '--format', format);
      expect(run.stderr).not.toMatch(/call stack|render error/i);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Deep');
    },
  );

  it('substitutes variables down to its deepest field', async () => {
    const run = await diff(heads['deepest'] ?? '', '--format', 'json');
    const result = JSON.parse(run.stdout) as {
      changes: Array<{ kind: string; new?: Record<string, unknown> }>;
      errors: unknown[];
    };
    expect(result.errors).toEqual([]);
    let leaf: unknown = result.changes.find((c) => c.kind === 'Deep')?.new?.['spec'];
    for (let i = 0; i < 254; i++) leaf = (leaf as Record<string, unknown> | undefined)?.['a'];
    expect(leaf).toBe('blue');
  });
});

/** `.fluxlens.yaml` nested 1,000 levels deep: 2 KB that a pull request can write. */
const DEEP_POLICY = `clusters: ${'['.repeat(1000)}${']'.repeat(1000)}\n`;

describe('a deep .fluxlens.yaml, through fluxlens diff', () => {
  let repo: TestRepo;
  const heads: Record<string, string> = {};
  const diff = (base: string, head: string) =>
    runCli(['diff', '--repo', repo.dir, '--base', base, '--head', head, '--format', 'json']);

  it('builds a base whose policy names the cluster, and commits that make the policy deep', () => {
    repo = makeRepo(
      {
        '.fluxlens.yaml': 'clusters:\n  - name: prod\n    path: clusters/prod\n',
        'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/apps.yaml': yamlStream(fluxKustomization('infra', './infra')),
        'infra/cm.yaml': configMap('infra'),
      },
      { git: true },
    );
    repos.push(repo);
    heads['base'] = repo.commit('base');
    repo.write({ '.fluxlens.yaml': DEEP_POLICY, 'infra/cm.yaml': configMap('infra-2') });
    heads['deep'] = repo.commit('a deep policy');
    heads['after'] = repo.commit('after the deep policy');
    expect(Object.keys(heads)).toHaveLength(3);
  });

  it('refuses a deep policy at the base as a usage error naming the file', async () => {
    const run = await diff(heads['deep'] ?? '', heads['after'] ?? '');
    expect(run.stderr).not.toMatch(/call stack/);
    expect(run.stderr).toMatch(
      /^fluxlens: \.fluxlens\.yaml: invalid YAML \(line 1\): nesting deeper than 256 levels$/m,
    );
    expect(run.code).toBe(2);
  });

  it('reviews a pull request that makes the policy deep by the base policy', async () => {
    const run = await diff(heads['base'] ?? '', heads['deep'] ?? '');
    expect(run.stderr).not.toMatch(/call stack/);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as {
      changes: Array<{ status: string; cluster: string; name: string }>;
    };
    expect(result.changes.map((c) => [c.status, c.cluster, c.name]).sort()).toEqual([
      ['added', 'prod', 'infra-2'],
      ['removed', 'prod', 'infra'],
    ]);
  });
});
