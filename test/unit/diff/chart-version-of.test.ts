/** Chart versions risk rules read from raw manifests, before normalisation strips the labels. */
import { describe, expect, it } from 'vitest';
import { chartLabelOf, chartVersionOf } from '../../../src/diff/index.js';
import type { Manifest } from '../../../src/model/render.js';

const labelled = (labels: Record<string, string>): Manifest => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 's', labels },
});

describe('the chart version of a Helm-rendered object', () => {
  it.each<[string, Record<string, string>, string | undefined, string | undefined]>([
    ['a plain chart', { 'helm.sh/chart': 'redis-17.3.2' }, 'redis', '17.3.2'],
    [
      'a chart name with dashes and digits',
      { 'helm.sh/chart': 'kube-prometheus-stack2-45.1.0' },
      'kube-prometheus-stack2',
      '45.1.0',
    ],
    ['a pre-release', { 'helm.sh/chart': 'app-1.2.3-rc.1' }, 'app', '1.2.3-rc.1'],
    [
      'build metadata Helm wrote with _',
      { 'helm.sh/chart': 'app-1.2.3_build.5' },
      'app',
      '1.2.3+build.5',
    ],
    ['a chart name ending in a number', { 'helm.sh/chart': 'app-2-1.0.0' }, 'app-2', '1.0.0'],
    ['the older chart label', { chart: 'nginx-ingress-0.31.0' }, 'nginx-ingress', '0.31.0'],
    ['no chart label', { app: 'web' }, undefined, undefined],
    ['a label without a version', { 'helm.sh/chart': 'mychart' }, undefined, undefined],
  ])('reads %s', (_, labels, chart, version) => {
    expect(chartVersionOf(labelled(labels))).toBe(version);
    expect(chartLabelOf(labelled(labels))?.chart).toBe(chart);
  });
});
