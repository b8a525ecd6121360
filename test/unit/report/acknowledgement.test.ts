import { describe, expect, it } from 'vitest';
import { findingId, type Finding } from '../../../src/model/index.js';
import { failingFindingIds, renderCheckRun, renderMarkdown } from '../../../src/report/index.js';
import { analysis, finding } from './analysis-builders.js';

const pvc = finding({
  rule: 'stateful-data-deleted',
  level: 'danger',
  resource: { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'data' },
  message: 'PersistentVolumeClaim apps/data is deleted',
});
const crd = finding({
  rule: 'crd-removed',
  level: 'danger',
  resource: { kind: 'CustomResourceDefinition', name: 'widgets.example.com' },
  message: 'CustomResourceDefinition widgets.example.com is removed',
});
const note = finding({ level: 'caution', message: 'replicas go to zero' });

const acknowledged = (findings: Finding[], named: Finding[]) =>
  analysis({
    findings,
    acknowledgement: {
      by: 'octo-writer',
      at: '2026-01-02T03:04:05.000Z',
      findings: named.map((f) => findingId(f)).sort(),
    },
  });

describe('a finding id', () => {
  it('is the same for the same finding read from another file or line', () => {
    const elsewhere: Finding = { ...pvc, file: 'b.yaml', line: 9 };
    expect(findingId(elsewhere)).toBe(findingId(pvc));
  });

  it.each<[string, Partial<Finding>]>([
    ['rule', { rule: 'other-rule' }],
    ['cluster', { cluster: 'staging' }],
    ['resource', { resource: { kind: 'PersistentVolumeClaim', namespace: 'db', name: 'data' } }],
    ['message', { message: 'PersistentVolumeClaim apps/data is deleted, and more' }],
  ])('differs when the %s differs', (_what, edit) => {
    expect(findingId({ ...pvc, ...edit })).not.toBe(findingId(pvc));
  });
});

describe('an acknowledged review', () => {
  it('lists only the findings that fail the gate as the ones to acknowledge', () => {
    expect(failingFindingIds(analysis({ findings: [pvc, note] }), 'danger')).toEqual([
      findingId(pvc),
    ]);
    expect(failingFindingIds(analysis({ findings: [pvc] }), 'never')).toEqual([]);
  });

  it('is neutral when every failing finding was acknowledged, naming who in the summary', () => {
    const run = renderCheckRun(acknowledged([pvc, crd, note], [pvc, crd]), 'danger');
    expect(run.conclusion).toBe('neutral');
    expect(run.summary).toContain('**Acknowledged** by @octo-writer at 2026-01-02T03:04:05.000Z');
    expect(run.summary).toContain(
      `2 findings (\`${[findingId(pvc), findingId(crd)].sort().join('`, `')}\`)`,
    );
  });

  it('fails when a failing finding is one the acknowledgement did not name', () => {
    expect(renderCheckRun(acknowledged([pvc, crd], [pvc]), 'danger').conclusion).toBe('failure');
  });

  it('says who acknowledged in the comment too', () => {
    const markdown = renderMarkdown(acknowledged([pvc], [pvc]));
    expect(markdown).toContain(`by @octo-writer`);
    expect(markdown).toContain(findingId(pvc));
  });
});
