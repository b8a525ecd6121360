import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AnalysisResult, ClusterSummary } from '../../../src/model/analysis.js';
import type { ResourceChange } from '../../../src/model/change.js';
import { RENDER_ERROR_CODES, type Manifest, type ProducerRef } from '../../../src/model/render.js';
import type { Finding } from '../../../src/model/finding.js';
import { renderJson } from '../../../src/report/json.js';
import { analysisSchemaPath, expectValidAnalysis } from '../../support/analysis-schema.js';

const apps: ProducerRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
const infra: ProducerRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' };
const podinfo: ProducerRef = { kind: 'HelmRelease', namespace: 'podinfo', name: 'podinfo' };

function deployment(name: string, image: string): Manifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'apps', labels: { app: name } },
    spec: { template: { spec: { containers: [{ name: 'app', image }] } } },
  };
}

function clusterSummary(name: string, changes: ResourceChange[]): ClusterSummary {
  const mine = changes.filter((c) => c.cluster === name);
  const count = (status: ResourceChange['status']): number =>
    mine.filter((c) => c.status === status).length;
  const producers = mine.map(
    (c) => `${c.producer.kind}/${c.producer.namespace}/${c.producer.name}`,
  );
  return {
    name,
    path: `clusters/${name}`,
    added: count('added'),
    removed: count('removed'),
    changed: count('changed'),
    moved: count('moved'),
    producers: [...new Set(producers)].sort(),
    namespaces: [...new Set(mine.flatMap((c) => (c.namespace ? [c.namespace] : [])))].sort(),
    crds: [],
    images: [],
    errorsIntroduced: [],
    errorsFixed: [],
  };
}

function analysis(
  changes: ResourceChange[],
  findings: Finding[] = [],
  clusters: string[] = ['home'],
): AnalysisResult {
  const count = (status: ResourceChange['status']): number =>
    changes.filter((c) => c.status === status).length;
  const levels = (level: Finding['level']): number =>
    findings.filter((f) => f.level === level).length;
  const top = levels('danger')
    ? 'danger'
    : levels('caution')
      ? 'caution'
      : levels('info')
        ? 'info'
        : 'none';
  return {
    schemaVersion: 1,
    base: { rev: 'main', sha: '1'.repeat(40) },
    head: { rev: 'HEAD', sha: '2'.repeat(40) },
    verdict: {
      level: top,
      headline: changes.length ? `${changes.length} objects change` : 'No changes',
      routine: false,
      counts: { info: levels('info'), caution: levels('caution'), danger: levels('danger') },
    },
    summary: {
      added: count('added'),
      removed: count('removed'),
      changed: count('changed'),
      moved: count('moved'),
      findings: findings.length,
    },
    clusters: clusters.map((name) => clusterSummary(name, changes)),
    changes,
    findings,
    errors: [],
    timings: { render: 812.5, diff: 3, risk: 1 },
  };
}

const added: ResourceChange = {
  id: 'apps/Deployment/apps/api',
  status: 'added',
  contentChanged: true,
  cluster: 'home',
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace: 'apps',
  name: 'api',
  producer: apps,
  file: 'apps/api/deployment.yaml',
  new: deployment('api', 'ghcr.io/acme/api:1.0.0'),
  fields: [],
  diff: '--- base\n+++ head\n@@ -0,0 +1,2 @@\n+apiVersion: apps/v1\n+kind: Deployment\n',
};

const removed: ResourceChange = {
  id: '/PersistentVolumeClaim/apps/data',
  status: 'removed',
  contentChanged: true,
  cluster: 'home',
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  namespace: 'apps',
  name: 'data',
  producer: apps,
  old: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' } },
  fields: [],
  diff: '--- base\n+++ head\n@@ -1,2 +0,0 @@\n-apiVersion: v1\n-kind: PersistentVolumeClaim\n',
};

const changed: ResourceChange = {
  id: 'apps/Deployment/apps/web',
  status: 'changed',
  contentChanged: true,
  cluster: 'home',
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace: 'apps',
  name: 'web',
  producer: apps,
  old: deployment('web', 'ghcr.io/acme/web:1.1.0'),
  new: deployment('web', 'ghcr.io/acme/web:1.2.0'),
  fields: [{ path: 'spec.template.spec.containers[app].image', change: 'changed' }],
  diff: '@@ -5,1 +5,1 @@\n-      image: ghcr.io/acme/web:1.1.0\n+      image: ghcr.io/acme/web:1.2.0\n',
};

const moved: ResourceChange = {
  id: '/ConfigMap/podinfo/podinfo-values',
  status: 'moved',
  contentChanged: false,
  cluster: 'home',
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'podinfo',
  name: 'podinfo-values',
  producer: podinfo,
  previousProducer: infra,
  old: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'podinfo-values' } },
  new: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'podinfo-values' } },
  fields: [],
  diff: '',
};

const clusterRole: ResourceChange = {
  id: 'rbac.authorization.k8s.io/ClusterRole//reader',
  status: 'added',
  contentChanged: true,
  cluster: 'staging',
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  name: 'reader',
  producer: infra,
  new: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'reader' },
  },
  fields: [],
  diff: '@@ -0,0 +1,1 @@\n+kind: ClusterRole\n',
};

function secret(data: Record<string, string>): Manifest {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'apps' }, data };
}

const secretChange: ResourceChange = {
  id: '/Secret/apps/db',
  status: 'changed',
  contentChanged: true,
  cluster: 'home',
  apiVersion: 'v1',
  kind: 'Secret',
  namespace: 'apps',
  name: 'db',
  producer: apps,
  old: secret({ password: '<redacted>' }),
  new: { ...secret({ password: '<redacted>', user: '<redacted>' }), sops: '<redacted>' },
  fields: [{ path: 'data.user', change: 'added' }],
  diff: '@@ -1,2 +1,3 @@\n data:\n   password: <redacted>\n+  user: <redacted>\n',
};

const pvcDeleted: Finding = {
  rule: 'pvc-deleted',
  level: 'danger',
  cluster: 'home',
  resource: { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'data' },
  producer: apps,
  message: 'Deletes PersistentVolumeClaim apps/data: its volume and data are lost',
  file: 'apps/data/pvc.yaml',
  line: 3,
};

const clusterRoleAdded: Finding = {
  rule: 'rbac-cluster-scope',
  level: 'caution',
  cluster: 'staging',
  resource: { kind: 'ClusterRole', name: 'reader' },
  message: 'Adds a ClusterRole',
};

const everyStatus = analysis([removed, added, changed, moved], [pvcDeleted]);
const withError: AnalysisResult = {
  ...everyStatus,
  errors: [
    {
      cluster: 'home',
      side: 'head',
      introduced: true,
      producer: infra,
      file: 'infra/kustomization.yaml',
      message: 'kustomize build failed: accumulating resources',
    },
  ],
  reportUrl: 'https://fluxlens.example/reports/42',
};
const withUnavailableChart: AnalysisResult = {
  ...everyStatus,
  errors: (['base', 'head'] as const).map((side) => ({
    cluster: 'home',
    side,
    introduced: false,
    producer: { kind: 'HelmRelease', namespace: 'apps', name: 'web' },
    message: "chart unavailable: chart 'web' is not in the cache (offline)",
    code: 'chart-unavailable',
    offline: true,
  })),
};

describe('AnalysisResult schema', () => {
  it.each([
    ['an added, a removed, a changed and a moved object with a finding', everyStatus],
    ['a render error introduced at head and a report URL', withError],
    ['render errors with their cause code, of an offline render', withUnavailableChart],
    ['a changed Secret whose values are redaction markers', analysis([secretChange])],
    [
      'two clusters with findings in both',
      analysis([changed, clusterRole], [pvcDeleted, clusterRoleAdded], ['home', 'staging']),
    ],
    ['no changes at all', analysis([], [], ['home', 'staging'])],
  ])('accepts %s', (_name, result) => {
    expect(() => expectValidAnalysis(JSON.parse(renderJson(result)))).not.toThrow();
  });

  const json = (): Record<string, unknown> =>
    JSON.parse(renderJson(everyStatus)) as Record<string, unknown>;
  const at = (value: unknown, ...path: (string | number)[]): Record<string, unknown> => {
    let node = value;
    for (const key of path) node = (node as Record<string | number, unknown>)[key];
    return node as Record<string, unknown>;
  };
  // `changes` of everyStatus: 0 removed, 1 added, 2 changed, 3 moved.
  it.each<[string, (r: Record<string, unknown>) => void, RegExp]>([
    ['a result without a verdict', (r) => delete r['verdict'], /required property 'verdict'/],
    [
      'a verdict level outside none|info|caution|danger',
      (r) => (at(r, 'verdict')['level'] = 'warning'),
      /\/verdict\/level/,
    ],
    [
      'a finding at level none',
      (r) => (at(r, 'findings', 0)['level'] = 'none'),
      /\/findings\/0\/level/,
    ],
    [
      'a rule id that is not kebab-case',
      (r) => (at(r, 'findings', 0)['rule'] = 'PVC_Deleted'),
      /\/findings\/0\/rule/,
    ],
    ['another schema version', (r) => (r['schemaVersion'] = 2), /\/schemaVersion/],
    ['an abbreviated commit id', (r) => (at(r, 'head')['sha'] = 'abc1234'), /\/head\/sha/],
    ['a field the schema does not declare', (r) => (r['extra'] = true), /additional properties/],
    [
      'an added object with a base manifest',
      (r) => (at(r, 'changes', 1)['old'] = {}),
      /\/changes\/1\/old/,
    ],
    [
      'a removed object with a head manifest',
      (r) => (at(r, 'changes', 0)['new'] = {}),
      /\/changes\/0\/new/,
    ],
    [
      'a changed object whose content did not change',
      (r) => (at(r, 'changes', 2)['contentChanged'] = false),
      /\/changes\/2\/contentChanged/,
    ],
    [
      'a move without its previous producer',
      (r) => delete at(r, 'changes', 3)['previousProducer'],
      /required property 'previousProducer'/,
    ],
    [
      'a previous producer on a change that is not a move',
      (r) => (at(r, 'changes', 2)['previousProducer'] = infra),
      /\/changes\/2\/previousProducer/,
    ],
    [
      'a producer of an unknown kind',
      (r) => (at(r, 'changes', 2, 'producer')['kind'] = 'GitRepository'),
      /\/changes\/2\/producer\/kind/,
    ],
    [
      'a Secret value that is not redacted',
      (r) => (at(r, 'changes', 2)['new'] = secret({ password: 'hunter2' })),
      /\/changes\/2\/new\/data\/password/,
    ],
    ['a negative count', (r) => (at(r, 'summary')['added'] = -1), /\/summary\/added/],
    [
      'a render error code the renderer never gives',
      (r) => (r['errors'] = [{ ...at(withUnavailableChart, 'errors', 0), code: 'network' }]),
      /\/errors\/0\/code/,
    ],
  ])('rejects %s', (_name, mutate, message) => {
    const broken = json();
    mutate(broken);
    expect(() => expectValidAnalysis(broken)).toThrow(message);
  });
});

describe('render error codes', () => {
  it('are the same in the schema as in the model', () => {
    const schema = JSON.parse(readFileSync(analysisSchemaPath, 'utf8')) as {
      $defs: { analysisError: { properties: { code: { enum: string[] } } } };
    };
    expect(schema.$defs.analysisError.properties.code.enum).toEqual([...RENDER_ERROR_CODES]);
  });
});

/** The same value with keys inserted in sorted order at every depth. */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, sortedCopy(record[k])]),
    );
  }
  return value;
}

/** The same value with keys inserted in reverse order at every depth. */
function reversedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedCopy);
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .reverse()
        .map((k) => [k, reversedCopy(record[k])]),
    );
  }
  return value;
}

describe('renderJson', () => {
  it('renders the same result to the same bytes every time', () => {
    expect(renderJson(everyStatus)).toBe(renderJson(everyStatus));
    expect(renderJson(withError)).toBe(renderJson(structuredClone(withError)));
  });

  it('does not depend on the order keys were set in', () => {
    const reordered = reversedCopy(withError) as AnalysisResult;
    expect(Object.keys(reordered)[0]).toBe('verdict');
    expect(renderJson(reordered)).toBe(renderJson(withError));
  });

  it('sorts keys at every depth, with two-space indent and a trailing newline', () => {
    const text = renderJson(withError);
    expect(text).toBe(`${JSON.stringify(sortedCopy(withError), null, 2)}\n`);
    expect(text.split('\n').slice(0, 3)).toEqual(['{', '  "base": {', '    "rev": "main",']);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('sorts integer-like keys as strings, unlike JSON.stringify', () => {
    const data = { b: '1', '10': '2', '9': '3', a: '4' };
    const configMap: ResourceChange = {
      ...added,
      id: '/ConfigMap/apps/numbers',
      kind: 'ConfigMap',
      apiVersion: 'v1',
      name: 'numbers',
      new: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'numbers' }, data },
    };
    const text = renderJson(analysis([configMap]));
    const keys = ['"10"', '"9"', '"a"', '"b"'].map((k) => text.indexOf(`${k}: "`));
    expect(keys.every((k) => k > 0)).toBe(true);
    expect([...keys].sort((x, y) => x - y)).toEqual(keys);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(analysis([configMap]))));
  });

  it('keeps the redaction markers of a Secret and nothing else of its data', () => {
    const text = renderJson(analysis([secretChange]));
    expect(text).toContain('"password": "<redacted>"');
    expect(text).toContain('"sops": "<redacted>"');
  });

  it('renders empty lists and maps compactly, as JSON.stringify does', () => {
    const text = renderJson({ ...analysis([]), timings: {} });
    expect(text).toContain('"changes": []');
    expect(text).toContain('"timings": {}');
    expect(JSON.parse(text)).toEqual({ ...analysis([]), timings: {} });
  });
});
