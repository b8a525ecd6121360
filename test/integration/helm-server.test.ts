/**
 * helm-server against the helm binary: every chart of the test fixtures, and charts written
 * here for what the fixtures do not show (a failing template, a library chart, a kubeVersion
 * constraint, schema errors, helm's own version), rendered both ways with each switch fluxlens
 * passes, must print byte-identical output or fail with the same message. And a helm-server
 * that cannot serve hands its renders to the helm binary, saying so.
 *
 * The server is built from tools/helm-server with Go and the linker flags scripts/install-tools
 * gives helm, so what is tested is the source as it stands; without Go, the installed one
 * (scripts/install-tools helm-server) is tested; with neither, the tests skip, and fail under
 * CI (CI=true).
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  helmTemplateText,
  TemplateError,
  type TemplateOptions,
} from '../../src/render/helm/template.js';
import { ToolServer } from '../../src/render/kustomize/tool-server.js';
import { mapLimit } from '../../src/render/workspace/index.js';
import { ToolRunner } from '../../src/tool-runner.js';
import { BuiltinEngine } from '../../src/render/builtin/engine.js';
import { DEFAULT_RENDER_SETTINGS } from '../../src/render/settings.js';
import { projectRoot } from '../support/paths.js';
import { testHelmSettings } from '../support/render.js';
import { findTool } from '../support/tools.js';

const SOURCES = join(projectRoot, 'tools', 'helm-server');
const FIXTURES = join(projectRoot, 'test', 'fixtures');
const config = loadConfig();
const go =
  findTool('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
const installed = findTool('helm-server');
const required = process.env['CI'] === 'true';
const run = promisify(execFile);

/** Every chart folder of test/fixtures, subcharts included. */
function fixtureCharts(dir = FIXTURES): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return fixtureCharts(path);
    return entry.name === 'Chart.yaml' ? [dirname(path)] : [];
  });
}

/** Charts for what the fixtures do not show, each a name and its files. */
const WRITTEN: Record<string, Record<string, string>> = {
  failing: {
    'Chart.yaml': 'apiVersion: v2\nname: failing\nversion: 1.0.0\n',
    'templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ required "name is required" .Values.name }}\n',
  },
  library: {
    'Chart.yaml': 'apiVersion: v2\nname: library\nversion: 1.0.0\ntype: library\n',
    'templates/_helpers.tpl': '{{- define "x" }}x{{ end }}\n',
  },
  'old-kube': {
    'Chart.yaml': 'apiVersion: v2\nname: old-kube\nversion: 1.0.0\nkubeVersion: "<1.20.0"\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
  },
  schema: {
    'Chart.yaml': 'apiVersion: v2\nname: schema\nversion: 1.0.0\n',
    'values.schema.json': JSON.stringify({
      type: 'object',
      properties: { replicas: { type: 'integer' } },
    }),
    'templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  replicas: {{ .Values.replicas | quote }}\n',
  },
  capabilities: {
    'Chart.yaml': 'apiVersion: v2\nname: capabilities\nversion: 1.0.0\ndeprecated: true\n',
    'templates/cm.yaml': [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: {{ .Release.Name }}-{{ .Release.Namespace }}',
      'data:',
      '  helm: {{ .Capabilities.HelmVersion.Version | quote }}',
      '  kube: {{ .Capabilities.KubeVersion.Version | quote }}',
      '  apis: {{ .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" | quote }}',
      '  upgrade: {{ .Release.IsUpgrade | quote }}',
      '  lookup: {{ lookup "v1" "Secret" "x" "y" | toJson | quote }}',
      '  files: {{ .Files.Get "extra/note.txt" | quote }}',
      '  text: "héllo ✓ 🚀"',
      '  values: {{ .Values | toJson | quote }}',
      '---',
      '# an empty document, and a hook on upgrade only',
      '---',
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      '  name: upgrade-hook',
      '  annotations:',
      '    helm.sh/hook: pre-upgrade',
      '    helm.sh/hook-weight: "-1"',
      'spec: {}',
      '',
    ].join('\n'),
    'templates/NOTES.txt': 'notes are not printed\n',
    'extra/note.txt': 'a file of the chart\n',
  },
  'missing-dependency': {
    'Chart.yaml':
      'apiVersion: v2\nname: missing-dependency\nversion: 1.0.0\ndependencies:\n  - name: absent\n    version: 1.0.0\n    repository: https://charts.example.invalid\n',
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
  },
};

/** Each switch of `helm template` fluxlens passes, and values that make the charts branch. */
const VARIANTS: { name: string; options: Partial<TemplateOptions> }[] = [
  { name: 'defaults', options: {} },
  {
    name: 'values, upgrade, CRDs skipped',
    options: {
      values: { name: 'given', replicas: 2, strict: true, greeting: 'on', nested: { a: [1, 'b'] } },
      crds: 'skip',
      isUpgrade: true,
    },
  },
  {
    name: 'kube version and API versions',
    options: { kubeVersion: '1.29.3', apiVersions: ['monitoring.coreos.com/v1', 'batch/v1beta1'] },
  },
  { name: 'no hooks', options: { disableHooks: true, includeTests: true } },
  {
    name: 'validation off',
    options: {
      values: { replicas: 'two' },
      disableSchemaValidation: true,
      disableOpenAPIValidation: true,
    },
  },
  { name: 'values that fail', options: { values: { explode: true } } },
  { name: 'values the schema refuses', options: { values: { replicas: 'two' } } },
  { name: 'a kube version helm refuses', options: { kubeVersion: 'not-a-version' } },
  { name: 'a release name helm refuses', options: { releaseName: 'Not_Valid' } },
];

type Outcome = { text: string } | { error: string; code: string };

async function outcome(render: Promise<string>): Promise<Outcome> {
  try {
    return { text: await render };
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    return { error: err.message, code: err.code };
  }
}

if (go === undefined && installed === undefined && !required) {
  console.warn('helm-server: neither Go nor an installed helm-server; tests skipped');
}

describe('helm-server, against helm template', () => {
  if (go === undefined && installed === undefined) {
    it.skipIf(!required)('needs Go or scripts/install-tools helm-server', () => {
      throw new Error('neither Go nor helm-server is installed');
    });
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-helm-server-'));
  for (const [name, files] of Object.entries(WRITTEN)) {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(work, 'charts', name, file)), { recursive: true });
      writeFileSync(join(work, 'charts', name, file), text);
    }
  }
  const charts = [
    ...fixtureCharts().map((dir) => ({ name: dir.slice(projectRoot.length + 1), dir })),
    ...Object.keys(WRITTEN).map((name) => ({ name, dir: join(work, 'charts', name) })),
  ];
  const cases = charts.flatMap((chart) =>
    VARIANTS.map((variant) => ({ ...chart, variant: variant.name, options: variant.options })),
  );
  let runner: ToolRunner;
  let bin = config.toolsBinDir;
  const servers: ToolServer[] = [];
  const options = (dir: string, more: Partial<TemplateOptions>): TemplateOptions => ({
    chartDir: dir,
    releaseName: 'rel',
    namespace: 'apps',
    values: {},
    apiVersions: [],
    crds: 'include',
    isUpgrade: false,
    disableHooks: false,
    disableOpenAPIValidation: false,
    timeoutMs: 60_000,
    maxOutputBytes: 16 << 20,
    ...more,
  });
  const scratch = () => mkdtempSync(join(work, 'scratch-'));

  beforeAll(async () => {
    if (go !== undefined) {
      bin = join(work, 'bin');
      // The stamps install-tools gives helm and helm-server: version and default kube version.
      const { stdout: stamps } = await run(
        'bash',
        [
          '-c',
          'source scripts/tool-versions.sh && source scripts/tool-installers.sh && helm_stamps',
        ],
        { cwd: projectRoot },
      );
      await run(go, ['build', '-ldflags', stamps.trim(), '-o', join(bin, 'helm-server'), '.'], {
        cwd: SOURCES,
        env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
      });
    }
    const path = [config.toolsBinDir, config.path].join(delimiter);
    runner = new ToolRunner({ toolsBinDir: bin, path, baseEnv: config.toolEnv });
  }, 600_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(work, { recursive: true, force: true });
  });

  /** Runs a server handed to the binary: a comparison only counts without any. */
  const fellBack: string[] = [];
  const server = () => {
    const s = new ToolServer(
      runner,
      { server: 'helm-server', binary: 'helm' },
      { fellBack: (command, why) => fellBack.push(`${command}: ${why}`) },
    );
    servers.push(s);
    return s;
  };

  it('renders every chart with every switch as helm template does, output or error, all at once', async () => {
    const shared = server();
    // The binary's renders two at a time (a process each), the server's all at once.
    const binary = await mapLimit(cases, 2, (c) =>
      outcome(helmTemplateText(runner, options(c.dir, c.options), scratch())),
    );
    const served = await Promise.all(
      cases.map((c) =>
        outcome(helmTemplateText(runner, options(c.dir, c.options), scratch(), shared)),
      ),
    );
    const both = cases.map((c, i) => ({
      name: `${c.name}, ${c.variant}`,
      binary: binary[i],
      served: served[i],
    }));
    for (const { name, binary, served } of both)
      expect({ name, served }).toEqual({ name, served: binary });
    // helm-server answered every one itself: a fallback would compare helm with helm.
    expect(fellBack).toEqual([]);
    // The comparison covers both kinds of outcome, and the features charts read.
    const texts = binary.flatMap((b) => ('text' in b ? [b.text] : []));
    const errors = binary.flatMap((b) => ('error' in b ? [b.error] : []));
    expect(texts.length).toBeGreaterThan(charts.length);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringContaining('explode was set, refusing to render'),
        expect.stringContaining('name is required'),
        expect.stringContaining('library charts are not installable'),
        expect.stringContaining('chart requires kubeVersion'),
        expect.stringContaining("values don't meet the specifications of the schema"),
        expect.stringContaining('invalid kube version'),
        expect.stringContaining('found in Chart.yaml, but missing in charts/ directory: absent'),
      ]),
    );
    const joined = texts.join('\n');
    for (const expected of ['helm: "v3.', 'kube: "v1.29.3"', 'apis: "true"', 'upgrade-hook', '🚀'])
      expect(joined).toContain(expected);
  }, 600_000);

  it('refuses an output over the cap as the tool runner does', async () => {
    const opts = options(join(work, 'charts', 'capabilities'), { maxOutputBytes: 100 });
    const binary = await outcome(helmTemplateText(runner, opts, scratch()));
    const served = await outcome(helmTemplateText(runner, opts, scratch(), server()));
    expect(served).toEqual(binary);
    expect('error' in served && served.error).toContain('output exceeded the size cap');
    expect(fellBack).toEqual([]);
  });

  it('renders a repository the same with helm-server as without, names it, and caches its renders apart', async () => {
    const cache = { dir: join(work, 'render-cache'), maxBytes: 64 << 20 };
    const render = (helmServer: boolean) =>
      new BuiltinEngine({
        runner,
        settings: { ...DEFAULT_RENDER_SETTINGS, helm: testHelmSettings, helmServer, cache },
      }).render({
        repoDir: join(FIXTURES, 'repos', 'helm-local-chart'),
        entry: 'clusters/lab',
        sources: [],
      });
    const served = await render(true);
    const binary = await render(false);
    const objects = (c: typeof served) => c.objects.map((o) => o.manifest);
    expect(objects(served)).toEqual(objects(binary));
    expect(served.objects.some((o) => o.producer.kind === 'HelmRelease')).toBe(true);
    expect(served.errors).toEqual([]);
    expect(served.tools['helm-server']).toMatch(/^helm-server \S+ \(helm v3\./);
    expect(binary.tools['helm-server']).toBeUndefined();
    // The binary's render took none of helm-server's releases from the cache, but takes its own.
    const again = await render(false);
    expect(objects(again)).toEqual(objects(binary));
    expect(again.cache?.hits ?? 0).toBeGreaterThan(binary.cache?.hits ?? 0);
  });

  it('hands the renders of a helm-server that dies to the helm binary, and says so', async () => {
    // A helm-server that exits at once, as a helper that crashes does, before the real helm.
    const broken = join(work, 'broken-bin');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'helm-server'), '#!/bin/sh\nexit 3\n');
    chmodSync(join(broken, 'helm-server'), 0o755);
    const path = [config.toolsBinDir, config.path].join(delimiter);
    const brokenRunner = new ToolRunner({ toolsBinDir: broken, path, baseEnv: config.toolEnv });
    const told: string[] = [];
    const dying = new ToolServer(
      brokenRunner,
      { server: 'helm-server', binary: 'helm' },
      { fellBack: (command, reason) => told.push(`${command}: ${reason}`) },
    );
    servers.push(dying);
    const opts = options(join(FIXTURES, 'charts', 'template-basic'), {});
    const binary = await outcome(helmTemplateText(runner, opts, scratch()));
    const served = await outcome(helmTemplateText(brokenRunner, opts, scratch(), dying));
    expect(served).toEqual(binary);
    expect('text' in served && served.text).toContain('# Source: template-basic/');
    expect(told).toEqual([expect.stringMatching(/^helm template .*: helm-server exited with 3$/)]);
  });
});
