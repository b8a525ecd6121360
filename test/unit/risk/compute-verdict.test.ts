import { describe, expect, it } from 'vitest';
import type { FieldChange, ResourceChange } from '../../../src/model/change.js';
import { computeVerdict } from '../../../src/risk/compute-verdict.js';
import type { Finding, Level } from '../../../src/model/finding.js';
import { APPS, PODINFO } from './scenario.js';

function change(
  kind: string,
  fields: Array<[string, FieldChange['change']]>,
  status: ResourceChange['status'] = 'changed',
): ResourceChange {
  return {
    id: `apps/${kind}/web/web`,
    status,
    contentChanged: true,
    cluster: 'home',
    apiVersion: kind === 'HelmRelease' ? 'helm.toolkit.fluxcd.io/v2' : 'apps/v1',
    kind,
    namespace: 'web',
    name: 'web',
    producer: kind === 'HelmRelease' ? APPS : PODINFO,
    fields: fields.map(([path, c]) => ({ path, change: c })),
    diff: '',
  };
}
function finding(level: Level, rule: string, resource: Finding['resource']): Finding {
  return { rule, level, cluster: 'home', resource, message: 'm' };
}
const pvcGone = finding('danger', 'stateful-data-deleted', {
  kind: 'PersistentVolumeClaim',
  namespace: 'data',
  name: 'pg-0',
});
const exposed = finding('caution', 'service-exposed', {
  kind: 'Service',
  namespace: 'web',
  name: 'api',
});
const unpinned = finding('info', 'image-unpinned', {
  kind: 'Deployment',
  namespace: 'web',
  name: 'web',
});

const imageBump = change('Deployment', [['spec.template.spec.containers[app].image', 'changed']]);
const initImageBump = change('Deployment', [
  ['spec.template.spec.initContainers["0"].image', 'changed'],
]);
const cronImageBump = change('CronJob', [
  ['spec.jobTemplate.spec.template.spec.containers[job].image', 'changed'],
]);
const chartBump = change('HelmRelease', [['spec.chart.spec.version', 'changed']]);
const valuesTag = change('HelmRelease', [['spec.values.image.tag', 'changed']]);
const chartLabel = change('Deployment', [
  ['metadata.labels["helm.sh/chart"]', 'changed'],
  ['spec.template.metadata.labels["app.kubernetes.io/version"]', 'changed'],
]);
const replicas = change('Deployment', [['spec.replicas', 'changed']]);
const secretValue = change('Secret', [['data.password', 'changed']]);
const added = change('Deployment', [['', 'added']], 'added');
const imageAdded = change('Deployment', [['spec.template.spec.containers[app].image', 'added']]);
const valuesOther = change('HelmRelease', [['spec.values.replicaCount', 'changed']]);

describe('the verdict', () => {
  it.each<[string, Finding[], ResourceChange[], number, boolean]>([
    ['calls an image tag bump routine', [], [imageBump], 0, true],
    [
      'calls image bumps of init containers and CronJobs routine',
      [],
      [initImageBump, cronImageBump],
      0,
      true,
    ],
    ['calls a chart version bump routine', [], [chartBump], 0, true],
    ['calls an image tag in HelmRelease values routine', [], [valuesTag], 0, true],
    ['calls chart and app version labels routine', [], [chartLabel], 0, true],
    ['keeps routine with only info findings', [unpinned], [imageBump], 0, true],
    ['is not routine with a caution finding', [exposed], [imageBump], 0, false],
    ['is not routine when another field changes too', [], [imageBump, replicas], 0, false],
    ['is not routine when a Secret value changes', [], [secretValue], 0, false],
    ['is not routine when an object is added', [], [added], 0, false],
    ['is not routine when an image field is added rather than changed', [], [imageAdded], 0, false],
    ['is not routine for other HelmRelease values', [], [valuesOther], 0, false],
    ['is not routine when a render error is introduced', [], [imageBump], 1, false],
    ['is not routine when nothing changes', [], [], 0, false],
  ])('%s', (_name, findings, changes, errors, routine) => {
    expect(computeVerdict(findings, changes, errors).routine).toBe(routine);
  });

  it.each<[string, Finding[], string]>([
    ['none without findings', [], 'none'],
    ['info with only info', [unpinned], 'info'],
    ['the highest level found', [unpinned, pvcGone, exposed], 'danger'],
  ])('takes %s', (_name, findings, level) => {
    expect(computeVerdict(findings, [replicas], 0).level).toBe(level);
  });

  it('counts findings per level', () => {
    expect(computeVerdict([unpinned, pvcGone, exposed, exposed], [], 0).counts).toEqual({
      info: 1,
      caution: 2,
      danger: 1,
    });
  });

  it.each<[string, Finding[], ResourceChange[], number, string]>([
    [
      'leads with the most severe finding and counts the rest',
      [unpinned, exposed, pvcGone, exposed],
      [],
      0,
      'Deletes PersistentVolumeClaim data/pg-0 (data loss), and 3 more findings',
    ],
    [
      'says one more finding in the singular',
      [exposed, unpinned],
      [],
      0,
      'Exposes Service web/api outside the cluster (exposure), and 1 more finding',
    ],
    [
      'leads with a lone finding',
      [exposed],
      [],
      0,
      'Exposes Service web/api outside the cluster (exposure)',
    ],
    [
      'names introduced render errors when nothing else is found',
      [],
      [imageBump],
      2,
      'Introduces 2 render errors',
    ],
    [
      'says when a change is routine',
      [],
      [imageBump, chartBump],
      0,
      'Routine: only image tags, digests and chart versions change (2 objects)',
    ],
    [
      'says a routine change is routine even with info findings',
      [unpinned],
      [imageBump],
      0,
      'Routine: only image tags, digests and chart versions change (1 object), with 1 info finding',
    ],
    [
      'says when nothing risky was found',
      [],
      [replicas, added],
      0,
      'No risky changes found in 2 changed objects (1 added, 1 changed)',
    ],
    ['says when nothing changed', [], [], 0, 'No changes to the rendered cluster'],
    [
      'names a cluster-wide finding by its cluster',
      [finding('caution', 'wide-change', { kind: 'Cluster', name: 'home' })],
      [],
      0,
      'Changes much of cluster home at once (breadth)',
    ],
  ])('headline: %s', (_name, findings, changes, errors, headline) => {
    expect(computeVerdict(findings, changes, errors).headline).toBe(headline);
  });
});

describe('the verdict while changed files are read by nothing fluxlens renders', () => {
  const unassessed = [
    {
      producer: { ...APPS, kind: 'HelmRelease' as const },
      side: 'head' as const,
      reason: 'chart unavailable',
    },
  ];
  it.each<[string, Finding[], ResourceChange[], number, { level: string; headline: string }]>([
    [
      'is info, not OK, when nothing else changed',
      [],
      [],
      1,
      {
        level: 'info',
        headline:
          '1 changed file is read by nothing fluxlens renders; No changes to the rendered cluster',
      },
    ],
    [
      'keeps a higher finding level and says both',
      [exposed],
      [replicas],
      2,
      {
        level: 'caution',
        headline: `2 changed files are read by nothing fluxlens renders; ${computeVerdict([exposed], [replicas], 0).headline}`,
      },
    ],
  ])('%s', (_name, findings, changes, unread, expected) => {
    const verdict = computeVerdict(findings, changes, 0, [], unread);
    expect(verdict).toMatchObject({ ...expected, unread, routine: false });
  });

  it('is not routine, though only an image changed', () => {
    expect(computeVerdict([], [imageBump], 0).routine).toBe(true);
    expect(computeVerdict([], [imageBump], 0, [], 1).routine).toBe(false);
  });

  it('follows what was not assessed in the headline', () => {
    const verdict = computeVerdict([], [], 0, unassessed, 3);
    expect(verdict.level).toBe('caution');
    expect(verdict.headline).toBe(
      'not assessed: 1 changed HelmRelease could not be rendered: chart unavailable; ' +
        '3 changed files are read by nothing fluxlens renders; No changes to the rendered cluster',
    );
  });

  it('says nothing of files when every one is accounted for', () => {
    const verdict = computeVerdict([], [], 0, [], 0);
    expect(verdict).toMatchObject({
      level: 'none',
      headline: 'No changes to the rendered cluster',
    });
    expect(verdict).not.toHaveProperty('unread');
  });
});
