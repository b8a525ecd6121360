/**
 * Issue 11, point 11: inputs too large to review, through `fluxlens render` with real
 * kustomize and helm. A file over 8 MiB, a document of more than 100,000 nodes, a producer
 * of more than 10,000 objects and a substitution that grows an object by more than 1 MiB or
 * reads more than 10,000 variables each fail the one producer that reads them, naming the
 * file or object and the bound, before kustomize or the next step spends time on them.
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

const configMap = (name: string, data: Record<string, string> = { a: '1' }): string =>
  stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'apps' }, data });

/** Valid YAML just over 8 MiB: one ConfigMap with one long value. */
const NINE_MIB = configMap('big', { text: 'x'.repeat(9 * 1024 * 1024) });

/** A ConfigMap with 50,001 keys: 100,010 nodes in one document. */
function wideMap(): string {
  const lines = Array.from({ length: 50_001 }, (_, i) => `  key${i}: v`);
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wide\n  namespace: apps\ndata:\n${lines.join('\n')}\n`;
}

/** A Kustomization whose post-build substitution has `substitute`. */
function substituting(name: string, substitute: Record<string, string>): Record<string, unknown> {
  const ks = fluxKustomization(name, `./${name}`);
  (ks['spec'] as Record<string, unknown>)['postBuild'] = { substitute };
  return ks;
}

function helmRelease(name: string, chart: string): string {
  const sourceRef = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };
  return stringify({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name, namespace: 'apps' },
    spec: { interval: '1h', chart: { spec: { chart, sourceRef } } },
  });
}

/** A chart that renders `count` ConfigMaps (10,001 by default). */
const MANY_CHART: RepoFiles = {
  'charts/many/Chart.yaml': 'apiVersion: v2\nname: many\nversion: 1.0.0\n',
  'charts/many/values.yaml': 'count: 10001\n',
  'charts/many/templates/cms.yaml':
    '{{- range until (int .Values.count) }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{{ . }}\n{{- end }}\n',
};

const FLEET: RepoFiles = {
  ...MANY_CHART,
  'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
  'clusters/prod/apps.yaml': yamlStream(
    ...['listed', 'scanned', 'wide', 'objects', 'infra'].map((name) =>
      fluxKustomization(name, `./${name}`),
    ),
    substituting('laughs', { A: 'x'.repeat(1000) }),
    substituting('echoes', { ONE: '1' }),
  ),
  'listed/kustomization.yaml': 'resources: [cm.yaml, big.yaml]\n',
  'listed/cm.yaml': configMap('listed'),
  'listed/big.yaml': NINE_MIB,
  'scanned/cm.yaml': configMap('scanned'),
  'scanned/big.yaml': NINE_MIB,
  'wide/kustomization.yaml': 'resources: [wide.yaml]\n',
  'wide/wide.yaml': wideMap(),
  'objects/release.yaml': helmRelease('many', './charts/many'),
  'laughs/cm.yaml': configMap('laughs', { a: '${A//x/${A//x/${A}}}' }),
  'echoes/cm.yaml': configMap('echoes', { a: '${ONE}'.repeat(10_001) }),
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

const errorsOf = (json: RenderJson, producer: string) =>
  json.errors.filter((e) => e.producer.name === producer);

describe('inputs past the size bounds, through fluxlens render', () => {
  let result: { run: CliRun; json: RenderJson } | undefined;
  const renderFleet = async () => (result ??= await render(FLEET));

  it('exits 0 with every bound as a render error', async () => {
    const { run, json } = await renderFleet();
    expect(run.code).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/Invalid string length|timed out/);
    expect(json.errors.map((e) => e.producer.name).sort()).toEqual(
      ['echoes', 'laughs', 'listed', 'many', 'scanned', 'wide'].sort(),
    );
  });

  it.each([
    ['listed', 'a file kustomization.yaml lists', 'listed/big.yaml', 'larger than 8 MiB'],
    ['scanned', 'a file of a folder Flux scans', 'scanned/big.yaml', 'larger than 8 MiB'],
    [
      'wide',
      'a document of 50,001 keys',
      'wide/wide.yaml',
      'more than 100000 nodes in one document at line 50002',
    ],
  ])('fails the Kustomization %s on %s, naming the file', async (producer, _, file, problem) => {
    const { json } = await renderFleet();
    expect(errorsOf(json, producer)).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: producer },
        file,
        // A folder Flux scans is read when the kustomization is generated, which words it so.
        message: expect.stringMatching(
          new RegExp(`^(.* from )?${file.replaceAll('.', '\\.')}: ${problem}$`),
        ),
      },
    ]);
  });

  it('fails the HelmRelease whose chart renders 10,001 objects, and keeps none of them', async () => {
    const { json } = await renderFleet();
    expect(errorsOf(json, 'many')).toEqual([
      {
        producer: { kind: 'HelmRelease', namespace: 'apps', name: 'many' },
        file: 'objects/release.yaml',
        message: 'rendered 10001 objects, more than the 10000 fluxlens reviews of one producer',
      },
    ]);
    expect(json.objects.filter((o) => o.producer.name === 'many')).toEqual([]);
  });

  it.each([
    ['laughs', 'expansion grows the object by more than 1 MiB'],
    ['echoes', 'more than 10000 variable references in one object'],
  ])('fails the Kustomization %s on its substitution, naming the object', async (name, bound) => {
    const { json } = await renderFleet();
    expect(errorsOf(json, name).map((e) => e.message)).toEqual([
      `post build failed for 'ConfigMap/${name}': envsubst error: variable substitution failed: ${bound}`,
    ]);
  });

  it('renders every producer within the bounds', async () => {
    const { json } = await renderFleet();
    const names = json.objects.map((o) => `${o.producer.name}:${o.manifest.metadata.name}`);
    expect(names).toContain('infra:infra');
    expect(names).toContain('objects:many');
  });
});

describe('a file over 8 MiB at the top of the entry folder, which discovery reads', () => {
  it('fails the bootstrap Kustomization, naming the file, and renders the rest', async () => {
    const { run, json } = await render({
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yamlStream(fluxKustomization('infra', './infra')),
      'clusters/prod/big.yaml': NINE_MIB,
      'infra/cm.yaml': configMap('infra'),
    });
    expect(run.code).toBe(0);
    expect(json.errors).toEqual([
      {
        producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'flux-system' },
        file: 'clusters/prod/big.yaml',
        message: expect.stringMatching(/^(.* from )?clusters\/prod\/big\.yaml: larger than 8 MiB$/),
      },
    ]);
    expect(json.objects.map((o) => `${o.producer.name}:${o.manifest.metadata.name}`)).toEqual([
      'infra:infra',
    ]);
  });
});
