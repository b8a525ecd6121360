/** Hand-built AnalysisResult values for report tests: small defaults, override what matters. */
import {
  ANALYSIS_SCHEMA_VERSION,
  type AnalysisResult,
  type ClusterSummary,
} from '../../../src/model/analysis.js';
import type { ResourceChange } from '../../../src/model/change.js';
import type { ProducerRef } from '../../../src/model/render.js';
import type { Finding } from '../../../src/model/finding.js';

export function kustomization(name: string, namespace = 'flux-system'): ProducerRef {
  return { kind: 'Kustomization', namespace, name };
}

export function helmRelease(name: string, namespace = 'apps'): ProducerRef {
  return { kind: 'HelmRelease', namespace, name };
}

export function change(overrides: Partial<ResourceChange> & { name: string }): ResourceChange {
  return {
    id: `apps/Deployment/apps/${overrides.name}`,
    status: 'changed',
    contentChanged: true,
    cluster: 'default',
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: 'apps',
    producer: kustomization('apps'),
    fields: [{ path: 'spec.replicas', change: 'changed' }],
    diff: '@@ -1,3 +1,3 @@\n spec:\n-  replicas: 1\n+  replicas: 2\n',
    ...overrides,
  };
}

export function finding(overrides: Partial<Finding> & { message: string }): Finding {
  return {
    rule: 'test-rule',
    level: 'caution',
    cluster: 'default',
    resource: { kind: 'Deployment', namespace: 'apps', name: 'web' },
    ...overrides,
  };
}

export function clusterSummary(overrides: Partial<ClusterSummary> = {}): ClusterSummary {
  return {
    name: 'default',
    path: '.',
    added: 0,
    removed: 0,
    changed: 0,
    moved: 0,
    producers: [],
    namespaces: [],
    crds: [],
    images: [],
    errorsIntroduced: [],
    errorsFixed: [],
    ...overrides,
  };
}

/** A result whose counts follow its changes and findings, as the pipeline's would. */
export function analysis(overrides: Partial<AnalysisResult> = {}): AnalysisResult {
  const changes = overrides.changes ?? [];
  const findings = overrides.findings ?? [];
  const count = (status: ResourceChange['status']) =>
    changes.filter((c) => c.status === status).length;
  const levels = { info: 0, caution: 0, danger: 0 };
  for (const f of findings) levels[f.level] += 1;
  const level = levels.danger
    ? 'danger'
    : levels.caution
      ? 'caution'
      : levels.info
        ? 'info'
        : 'none';
  return {
    schemaVersion: ANALYSIS_SCHEMA_VERSION,
    base: { rev: 'main', sha: 'a'.repeat(40) },
    head: { rev: 'feature', sha: 'b'.repeat(40) },
    verdict: { level, headline: 'Scales the web Deployment', routine: false, counts: levels },
    summary: {
      added: count('added'),
      removed: count('removed'),
      changed: count('changed'),
      moved: count('moved'),
      findings: findings.length,
    },
    clusters: [clusterSummary()],
    changes,
    findings,
    errors: [],
    timings: {},
    ...overrides,
  };
}
