import { describe, expect, it } from 'vitest';
import { groupChanges } from '../../../src/report/group-changes.js';
import { analysis, change, finding, helmRelease, kustomization } from './analysis-builders.js';

describe('groupChanges', () => {
  it.each([
    [
      'a chart bump on the HelmRelease itself',
      'chart-major-bump',
      { kind: 'HelmRelease', namespace: 'apps', name: 'web' },
    ],
    [
      'the removal of the Kustomization itself',
      'producer-removed',
      { kind: 'Kustomization', namespace: 'flux-system', name: 'web' },
    ],
  ])('ranks a producer by a finding on %s', (_case, rule, resource) => {
    const producer =
      resource.kind === 'HelmRelease' ? helmRelease('web') : kustomization('web', 'flux-system');
    const result = analysis({
      // Two different changes: the same change in both would be one group.
      changes: [
        change({ name: 'quiet', producer: kustomization('a-quiet') }),
        change({
          name: 'chart-object',
          producer,
          diff: '@@ -1 +1 @@\n-  replicas: 1\n+  replicas: 3\n',
        }),
      ],
      findings: [
        finding({
          rule,
          level: 'caution',
          message: 'about the producer',
          resource,
          producer: kustomization('flux-system'),
        }),
      ],
    });
    const [first, second] = groupChanges(result)[0]?.producers ?? [];
    expect([first?.key, first?.level]).toEqual([
      `${resource.kind}/${resource.namespace}/web`,
      'caution',
    ]);
    expect([second?.key, second?.level]).toEqual(['Kustomization/flux-system/a-quiet', 'none']);
  });

  it('still ranks the producer that applies an object a finding is about', () => {
    const result = analysis({
      changes: [change({ name: 'x', producer: kustomization('parent') })],
      findings: [
        finding({
          level: 'danger',
          message: 'depends on a removed producer',
          resource: { kind: 'Kustomization', namespace: 'flux-system', name: 'unchanged' },
          producer: kustomization('parent'),
        }),
      ],
    });
    expect(groupChanges(result)[0]?.producers.map((p) => [p.key, p.level])).toEqual([
      ['Kustomization/flux-system/parent', 'danger'],
    ]);
  });
});
