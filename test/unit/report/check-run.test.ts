import { describe, expect, it } from 'vitest';
import type { AnalysisError } from '../../../src/model/analysis.js';
import type { CheckRunAnnotation, CheckRunConclusion } from '../../../src/model/check-run.js';
import type { Level } from '../../../src/model/finding.js';
import { renderCheckRun } from '../../../src/report/check-run.js';
import { analysis, change, finding, kustomization } from './analysis-builders.js';

const introducedError: AnalysisError = {
  cluster: 'default',
  side: 'head',
  introduced: true,
  producer: kustomization('broken'),
  message: 'kustomize build failed',
};

describe('renderCheckRun conclusion', () => {
  it.each<[string, Level[], Level | 'never', boolean, CheckRunConclusion]>([
    ['succeeds with no finding', [], 'danger', false, 'success'],
    ['succeeds with only info findings', ['info'], 'danger', false, 'success'],
    [
      'is neutral with a caution below failOn danger',
      ['caution', 'info'],
      'danger',
      false,
      'neutral',
    ],
    ['fails on a danger at failOn danger', ['danger'], 'danger', false, 'failure'],
    ['fails on a caution at failOn caution', ['caution'], 'caution', false, 'failure'],
    ['fails on a danger above failOn caution', ['danger'], 'caution', false, 'failure'],
    ['stays success on info below failOn caution', ['info'], 'caution', false, 'success'],
    ['fails on an info at failOn info', ['info'], 'info', false, 'failure'],
    ['succeeds at failOn info with no finding', [], 'info', false, 'success'],
    ['is neutral on a danger with failOn never', ['danger'], 'never', false, 'neutral'],
    ['is neutral on a caution with failOn never', ['caution'], 'never', false, 'neutral'],
    ['succeeds on info with failOn never', ['info'], 'never', false, 'success'],
    [
      'fails on an introduced render error (a danger finding)',
      ['danger'],
      'danger',
      true,
      'failure',
    ],
    [
      'is neutral on an introduced render error with failOn never, as the exit code passes',
      ['danger'],
      'never',
      true,
      'neutral',
    ],
    [
      'succeeds when the policy relevels an introduced render error to info',
      ['info'],
      'danger',
      true,
      'success',
    ],
  ])('%s', (_behaviour, levels, failOn, withError, expected) => {
    const result = analysis({
      findings: levels.map((level) => finding({ level, message: `${level} finding` })),
      errors: withError ? [introducedError] : [],
    });
    expect(renderCheckRun(result, failOn).conclusion).toBe(expected);
  });

  it('does not fail on a render error that already failed at base', () => {
    const result = analysis({
      errors: [
        { ...introducedError, side: 'base', introduced: false },
        { ...introducedError, introduced: false },
      ],
    });
    const run = renderCheckRun(result, 'danger');
    expect(run.conclusion).toBe('success');
    expect(run.summary).toContain('<summary>1 render error at head also failed at base</summary>');
  });

  it('does not say that a head error of a producer that rendered at base also failed there', () => {
    const unreachable = { ...introducedError, introduced: false, message: 'chart unavailable' };
    const run = renderCheckRun(analysis({ errors: [unreachable] }), 'danger');
    expect(run.summary).not.toContain('also failed at base');
  });
});

describe('renderCheckRun output', () => {
  it('annotates every finding with a file, at line 1 when the line is unknown', () => {
    const result = analysis({
      findings: [
        finding({
          level: 'danger',
          message: 'Deletes data',
          file: 'infra/pvc.yaml',
          line: 7,
          rule: 'pvc-delete',
          resource: { kind: 'PersistentVolumeClaim', namespace: 'db', name: 'data' },
        }),
        finding({ level: 'caution', message: 'Scales down', file: 'apps/web.yaml' }),
        finding({ level: 'info', message: 'Adds a label', file: 'apps/web.yaml', line: 3 }),
        finding({ level: 'danger', message: 'No file to point at' }),
      ],
    });
    expect(renderCheckRun(result, 'danger').annotations).toEqual<CheckRunAnnotation[]>([
      {
        path: 'infra/pvc.yaml',
        start_line: 7,
        end_line: 7,
        annotation_level: 'failure',
        title: 'DANGER pvc-delete: PersistentVolumeClaim/db/data',
        message: 'Deletes data',
      },
      {
        path: 'apps/web.yaml',
        start_line: 1,
        end_line: 1,
        annotation_level: 'warning',
        title: 'CAUTION test-rule: Deployment/apps/web',
        message: 'Scales down',
      },
      {
        path: 'apps/web.yaml',
        start_line: 3,
        end_line: 3,
        annotation_level: 'notice',
        title: 'INFO test-rule: Deployment/apps/web',
        message: 'Adds a label',
      },
    ]);
  });

  it('titles the run with the verdict and puts findings in the summary and diffs in the text', () => {
    const result = analysis({
      changes: [change({ name: 'web' })],
      findings: [finding({ level: 'caution', message: 'Scales the web Deployment up' })],
      reportUrl: 'https://fluxlens.example/r/7',
    });
    const run = renderCheckRun(result, 'danger');
    expect(run.title).toBe('CAUTION: Scales the web Deployment');
    expect(run.summary).toContain('#### Findings');
    expect(run.summary).not.toContain('```diff');
    expect(run.summary.endsWith('[Full report](<https://fluxlens.example/r/7>)\n')).toBe(true);
    expect(run.text).toContain('```diff\n@@ -1,3 +1,3 @@');
    expect(run.text.endsWith('[Full report](<https://fluxlens.example/r/7>)\n')).toBe(true);
  });

  it('says there are no object changes in the text of an empty analysis', () => {
    expect(renderCheckRun(analysis(), 'danger').text).toBe('No object changes.\n');
  });

  it('keeps a huge headline out of the title', () => {
    const result = analysis();
    result.verdict.headline = 'x'.repeat(100_000);
    const run = renderCheckRun(result, 'danger');
    expect(run.title.length).toBeLessThanOrEqual(255);
    expect(run.summary.length).toBeLessThanOrEqual(65535);
  });
});
