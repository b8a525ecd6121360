/**
 * CRDs from a chart's crds/ folder: helm-controller creates them outside the release, so
 * helm never deletes them, and under the default upgrade.crds (Create) never updates one
 * that exists. The renderer keeps the chart path of what it inflates: crds/ is in it.
 */
import { describe, expect, it } from 'vitest';
import { isChartCrdsFile } from '../../../src/risk/kit/index.js';
import {
  DEFAULT_PRODUCERS,
  PODINFO,
  findingsOf,
  fired,
  helmRelease,
  obj,
  place,
  type Scenario,
} from './scenario.js';

const CRDS_FILE = 'charts/podinfo/crds/widgets.yaml';

function widgets(served: boolean, file = CRDS_FILE) {
  const manifest = obj(
    'apiextensions.k8s.io/v1',
    'CustomResourceDefinition',
    'widgets.example.com',
    undefined,
    { spec: { group: 'example.com', versions: [{ name: 'v1', served, storage: true }] } },
  );
  return place(manifest, { producer: PODINFO, file });
}

const release = (upgrade: Record<string, unknown> = {}) =>
  place(helmRelease(PODINFO, { upgrade }), { file: 'apps/podinfo.yaml' });

describe('a chart path in a crds/ folder', () => {
  it.each<[string, boolean]>([
    ['charts/podinfo/crds/widgets.yaml', true],
    ['HelmRepository/flux-system/podinfo:podinfo/crds/widgets.yaml', true],
    ['charts/podinfo/charts/sub/crds/widgets.yaml', true],
    ['charts/crds/crds/widgets.yaml', true],
    ['charts/podinfo/templates/crds/widgets.yaml', false],
    ['charts/crds/templates/widgets.yaml', false],
    ['charts/podinfo/templates/widgets.yaml', false],
    ['crds', false],
  ])('%s is one: %s', (file, expected) => {
    expect(isChartCrdsFile(file)).toBe(expected);
  });
});

describe('CRDs from a chart crds/ folder', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a changed crds/ CRD under the default upgrade.crds',
      { base: [release(), widgets(true)], head: [release(), widgets(false)] },
      ['chart-crd-not-updated'],
    ],
    [
      'flags it under upgrade.crds: Skip',
      {
        base: [release({ crds: 'Skip' }), widgets(true)],
        head: [release({ crds: 'Skip' }), widgets(false)],
      },
      ['chart-crd-not-updated'],
    ],
    [
      'stays quiet under upgrade.crds: CreateReplace, which applies it',
      {
        base: [release({ crds: 'CreateReplace' }), widgets(true)],
        head: [release({ crds: 'CreateReplace' }), widgets(false)],
      },
      [],
    ],
    [
      'stays quiet for a CRD the chart keeps under templates/, which helm upgrades',
      {
        base: [release(), widgets(true, 'charts/podinfo/templates/crds/widgets.yaml')],
        head: [release(), widgets(false, 'charts/podinfo/templates/crds/widgets.yaml')],
      },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'flux')).toEqual(expected);
  });

  it('says the change is not applied and how to apply it', () => {
    const [finding] = findingsOf(
      { base: [release(), widgets(true)], head: [release(), widgets(false)] },
      'chart-crd-not-updated',
    );
    expect(finding).toMatchObject({ level: 'caution', file: CRDS_FILE });
    expect(finding?.message).toBe(
      "CustomResourceDefinition widgets.example.com changes in the chart's crds/ folder, but HelmRelease podinfo/podinfo upgrades with upgrade.crds: Create, the default: helm does not update CRDs from crds/ on upgrade, so this change is not applied (upgrade.crds: CreateReplace would apply it).",
    );
  });

  it('reports a crds/ CRD the chart drops as left in the cluster, not deleted', () => {
    const s: Scenario = { base: [release(), widgets(true)], head: [release()] };
    expect(fired(s, 'data-loss')).toEqual(['stateful-data-orphaned']);
    expect(findingsOf(s, 'stateful-data-orphaned')[0]?.message).toBe(
      "CustomResourceDefinition widgets.example.com is orphaned: helm does not delete CRDs from a chart's crds/ folder, so it stays in the cluster with nothing managing it.",
    );
  });

  it('still reports a templates/ CRD the chart drops as deleted', () => {
    const file = 'charts/podinfo/templates/widgets.yaml';
    const s: Scenario = { base: [release(), widgets(true, file)], head: [release()] };
    expect(fired(s, 'data-loss')).toEqual(['stateful-data-deleted']);
  });

  it('says the crds/ CRDs of an uninstalled release stay', () => {
    const [finding] = findingsOf(
      {
        base: [
          widgets(true),
          place(obj('v1', 'ConfigMap', 'podinfo', 'podinfo'), { producer: PODINFO }),
        ],
        head: [],
        headProducers: DEFAULT_PRODUCERS.slice(0, 2),
      },
      'producer-removed',
    );
    expect(finding?.message).toBe(
      "HelmRelease podinfo/podinfo is removed: helm uninstalls the release and its 1 object goes with it; its 1 CRD stays, as helm never deletes CRDs from a chart's crds/ folder.",
    );
  });
});
