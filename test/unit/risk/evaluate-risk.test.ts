import { describe, expect, it } from 'vitest';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import { DEFAULT_POLICY } from '../../../src/policy/types.js';
import { RULES } from '../../../src/risk/registry.js';
import {
  APPS,
  DEFAULT_PRODUCERS,
  ROOT,
  cluster,
  container,
  deployment,
  evaluate,
  kustomization,
  namespace,
  pairDiff,
  place,
  producer,
  pvc,
  service,
  statefulSet,
  type Scenario,
} from './scenario.js';

const privileged = (name: string) =>
  deployment(
    name,
    {},
    { containers: [container('app', { securityContext: { privileged: true } })] },
  );

/** One of each level, in scrambled order. */
const mixed: Scenario = {
  base: [pvc('pg-0'), service('api')],
  head: [
    service('api', { type: 'LoadBalancer' }),
    deployment('web', {}, { containers: [container('app', { image: 'nginx' })] }),
  ],
};

describe('evaluating risk', () => {
  it('sorts danger first, then caution, then info', () => {
    expect(evaluate(mixed).map((f) => [f.level, f.rule])).toEqual([
      ['danger', 'stateful-data-deleted'],
      ['caution', 'service-exposed'],
      ['info', 'image-unpinned'],
    ]);
  });

  it('sorts within a level by cluster, kind, namespace, name and rule', () => {
    const base = cluster([]);
    const head = cluster([
      privileged('b'),
      privileged('a'),
      statefulSet('z', { template: { spec: { hostNetwork: true, containers: [] } } }),
    ]);
    const findings = evaluateRisk({
      clusters: [
        { name: 'prod', diff: pairDiff('prod', base, head), base, head },
        { name: 'dev', diff: pairDiff('dev', base, head), base, head },
      ],
      policy: DEFAULT_POLICY,
    }).filter((f) => f.level === 'danger');
    expect(
      findings.map((f) => `${f.cluster} ${f.resource.kind} ${f.resource.name} ${f.rule}`),
    ).toEqual([
      'dev Deployment a privileged-container',
      'dev Deployment b privileged-container',
      'dev StatefulSet z host-namespace',
      'prod Deployment a privileged-container',
      'prod Deployment b privileged-container',
      'prod StatefulSet z host-namespace',
    ]);
  });

  it('reads the raw manifests of the rendered clusters, not the redacted ones in the diff', () => {
    // The scenario's diff carries placeholder old/new manifests with nothing in them.
    expect(
      evaluate({ base: [deployment('web')], head: [privileged('web')] }).map((f) => f.rule),
    ).toEqual(['privileged-container']);
  });

  it('fills in cluster, resource, producer and the head file', () => {
    const [finding] = evaluate({ base: [deployment('web')], head: [privileged('web')] });
    expect(finding).toEqual({
      rule: 'privileged-container',
      level: 'danger',
      cluster: 'home',
      resource: { kind: 'Deployment', namespace: 'web', name: 'web' },
      producer: APPS,
      message:
        "Deployment web/web: container app runs privileged, with full access to the node's devices and kernel.",
      file: 'apps/deployment-web.yaml',
    });
  });

  it.each<[string, Scenario, string, { file: string; line: number }]>([
    [
      'a changed object at its line in the head file',
      {
        base: [place(deployment('web'), { line: 3 })],
        head: [place(privileged('web'), { file: 'apps/web.yaml', line: 9 })],
      },
      'privileged-container',
      { file: 'apps/web.yaml', line: 9 },
    ],
    [
      'a removed object at its line in the base file',
      { base: [place(namespace('data'), { line: 4 })], head: [] },
      'stateful-data-deleted',
      { file: 'apps/namespace-data.yaml', line: 4 },
    ],
    [
      'a producer its parent renders at the line of its object there',
      {
        base: [],
        head: [place(kustomization(APPS), { producer: ROOT, file: 'clusters/apps.yaml', line: 7 })],
        headProducers: [
          DEFAULT_PRODUCERS[0]!,
          producer(APPS, { definedIn: { parent: ROOT }, suspend: true }),
        ],
      },
      'flux-suspended',
      { file: 'clusters/apps.yaml', line: 7 },
    ],
  ])('points %s', (_case, scenario, rule, where) => {
    const finding = evaluate(scenario).find((f) => f.rule === rule);
    expect(finding).toMatchObject(where);
  });

  it('leaves the namespace out for cluster-scoped resources', () => {
    const [finding] = evaluate({ base: [namespace('data')], head: [] });
    expect(finding?.resource).toEqual({ kind: 'Namespace', name: 'data' });
  });

  it('only ever reports registered rules', () => {
    const ids = new Set(RULES.map((r) => r.id));
    for (const finding of evaluate(mixed)) expect(ids).toContain(finding.rule);
  });

  it('finds nothing when nothing changed', () => {
    const objects = [
      privileged('web'),
      namespace('data'),
      service('api', { type: 'LoadBalancer' }),
    ];
    expect(evaluate({ base: objects, head: objects })).toEqual([]);
  });
});

describe('the repository policy', () => {
  it.each<[string, Partial<typeof DEFAULT_POLICY>, string[]]>([
    [
      'keeps every finding by default',
      {},
      ['danger stateful-data-deleted', 'caution service-exposed', 'info image-unpinned'],
    ],
    [
      'raises a rule to another level',
      { levels: { 'image-unpinned': 'danger' } },
      ['danger image-unpinned', 'danger stateful-data-deleted', 'caution service-exposed'],
    ],
    [
      'lowers a rule to info',
      { levels: { 'stateful-data-deleted': 'info' } },
      ['caution service-exposed', 'info image-unpinned', 'info stateful-data-deleted'],
    ],
    [
      'turns a rule off',
      { levels: { 'service-exposed': 'off' } },
      ['danger stateful-data-deleted', 'info image-unpinned'],
    ],
    [
      'ignores a rule on one resource',
      { ignores: [{ rule: 'service-exposed', resource: 'Service/web/api' }] },
      ['danger stateful-data-deleted', 'info image-unpinned'],
    ],
    [
      'ignores every rule on resources a glob matches',
      { ignores: [{ rule: '*', resource: 'PersistentVolumeClaim/data/*' }] },
      ['caution service-exposed', 'info image-unpinned'],
    ],
    [
      'keeps findings an ignore names another resource for',
      { ignores: [{ rule: 'service-exposed', resource: 'Service/other/*' }] },
      ['danger stateful-data-deleted', 'caution service-exposed', 'info image-unpinned'],
    ],
    [
      'keeps findings an ignore names another rule for',
      { ignores: [{ rule: 'image-unpinned', resource: 'Service/*' }] },
      ['danger stateful-data-deleted', 'caution service-exposed', 'info image-unpinned'],
    ],
  ])('%s', (_name, policy, expected) => {
    expect(evaluate({ ...mixed, policy }).map((f) => `${f.level} ${f.rule}`)).toEqual(expected);
  });
});
