/**
 * Hostile inputs, Secret values in what a report quotes rather than in a manifest's body:
 * an object whose name is built from a Secret-sourced variable, an image tag substituted
 * from one (quoted by a finding's message), and a chart that upper- or lower-cases a value
 * read from a Secret. None of them may show in any diff format or in the check run, while
 * the findings about those objects are still made.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCheckRun } from '../../src/report/check-run.js';
import { runCli } from '../support/cli.js';
import { analyzeBranches } from '../support/render.js';
import { bootstrap, makeRepo, type TestRepo, yamlStream } from '../support/repo.js';

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');

/** Digits only, so no word of the report can contain them by chance. */
const NAME_PART = `n${digits(15)}`;
const IMAGE_TAG = `t${digits(15)}`;
const TOKEN = `k${digits(20)}`;

const APPS_KUSTOMIZATION = {
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name: 'apps', namespace: 'flux-system' },
  spec: {
    interval: '10m',
    path: './apps',
    prune: true,
    sourceRef: { kind: 'GitRepository', name: 'flux-system' },
    postBuild: { substituteFrom: [{ kind: 'Secret', name: 'cluster-secrets' }] },
  },
};

const CHART = {
  'charts/cased/Chart.yaml': 'apiVersion: v2\nname: cased\nversion: 0.1.0\n',
  'charts/cased/values.yaml': 'token: ""\n',
  'charts/cased/templates/settings.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  shout: {{ .Values.token | upper | quote }}
  whisper: {{ printf "x-%s" (.Values.token | lower) | quote }}
  encoded: {{ .Values.token | upper | b64enc | quote }}
  checksum: {{ .Values.token | sha256sum | quote }}
`,
};

const RELEASE = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: cased
  namespace: apps
spec:
  interval: 1h
  chart:
    spec:
      chart: ./charts/cased
      sourceRef: { kind: GitRepository, name: flux-system, namespace: flux-system }
  valuesFrom:
    - kind: Secret
      name: api-token
      valuesKey: token
      targetPath: token
`;

const BASE_APPS = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings-\${NAME_PART}
  namespace: apps
data:
  short: db-\${NAME_PART:3:2}
`;

const HEAD_APPS = `${BASE_APPS}---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-\${NAME_PART}
  namespace: apps
spec:
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      hostNetwork: true
      containers:
        - name: web
          image: nginx:\${IMAGE_TAG}
          securityContext: { privileged: true }
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: tiny-app-\${NAME_PART:4:2}
  namespace: apps
`;

/** Every form of the values that must not appear anywhere, by what it is. */
const FORBIDDEN: Record<string, string> = {
  'a name part substituted from a Secret': NAME_PART,
  'an image tag substituted from a Secret (quoted by image-unpinned)': IMAGE_TAG,
  'a Helm value read from a Secret': TOKEN,
  'that value upper-cased by the chart': TOKEN.toUpperCase(),
  'that value upper-cased and base64-encoded': Buffer.from(TOKEN.toUpperCase()).toString('base64'),
  // Two digits from the Secret are too short to search for, so the whole name is hidden
  // (names shorter than MIN_SECRET_VALUE_LENGTH cannot be, like any short value).
  'a name holding two characters of a Secret': `tiny-app-${NAME_PART.slice(4, 6)}`,
};

let repo: TestRepo;
const outputs: Record<string, string> = {};
let report: { findings: Array<{ rule: string; resource: { name: string } }> };

beforeAll(async () => {
  repo = makeRepo(
    {
      ...CHART,
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yamlStream(APPS_KUSTOMIZATION),
      'clusters/prod/secrets.yaml': yamlStream({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'cluster-secrets', namespace: 'flux-system' },
        stringData: { NAME_PART, IMAGE_TAG },
      }),
      'apps/secret.yaml': yamlStream({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'api-token', namespace: 'apps' },
        stringData: { token: TOKEN },
      }),
      'apps/apps.yaml': BASE_APPS,
    },
    { git: true },
  );
  repo.commit('base');
  repo.write({ 'apps/apps.yaml': HEAD_APPS, 'apps/release.yaml': RELEASE });
  repo.commit('pr');
  const common = ['--repo', repo.dir, '--path', 'clusters/prod', '--base', 'HEAD~1'];
  for (const format of ['markdown', 'json', 'text', 'html']) {
    const run = await runCli(['diff', ...common, '--head', 'HEAD', '--format', format]);
    expect(run.code, run.stderr).toBe(1);
    outputs[`diff ${format}`] = run.stdout;
    outputs[`diff ${format}, its messages`] = run.stderr;
  }
  report = JSON.parse(outputs['diff json'] ?? '') as typeof report;
  const result = await analyzeBranches(repo.dir, 'HEAD~1', 'HEAD');
  outputs['check run'] = JSON.stringify(renderCheckRun(result, 'danger'));
});

afterAll(() => repo?.remove());

describe('Secret values in names, messages and chart functions', () => {
  it.each(Object.entries(FORBIDDEN))('no output shows %s', (_, secret) => {
    for (const [name, text] of Object.entries(outputs)) {
      expect(text.includes(secret), `${name} shows ${secret}`).toBe(false);
    }
  });

  it('still reports the privileged workload whose name came from a Secret', () => {
    const privileged = report.findings.filter((f) => f.rule === 'privileged-container');
    expect(privileged.map((f) => f.resource.name)).toEqual(['web-<redacted>']);
  });

  it('keeps a digest of a Secret-derived value readable (checksum annotations are not values)', () => {
    expect(outputs['diff json']).toMatch(/checksum: [0-9a-f]{64}/);
  });
});
