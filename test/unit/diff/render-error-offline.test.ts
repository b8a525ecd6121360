/**
 * A chart the offline render could not have (cold cache) is not a render error the PR
 * introduced or fixed: Flux would fetch it. (The cluster's errors still list it.)
 */
import { describe, expect, it } from 'vitest';
import { diffClusters } from '../../../src/diff/index.js';
import type { RenderError } from '../../../src/model/render.js';
import { cluster, helmRelease } from './build-cluster.js';

const NONE = { labels: [], annotations: [], fields: [] };
const PODINFO = helmRelease('podinfo', 'apps');
const BROKEN = helmRelease('broken', 'apps');

const notCached: RenderError = {
  producer: PODINFO,
  message:
    "chart unavailable: chart 'podinfo' from HelmRepository apps/podinfo version '6.7.0' is not in the cache (offline)",
  code: 'chart-unavailable',
  offline: true,
};
const templateFailure: RenderError = {
  producer: BROKEN,
  message: 'execution error at (broken/templates/cm.yaml:1:6): a tag is required',
};

function summary(base: RenderError[], head: RenderError[]) {
  return diffClusters(cluster([], base), cluster([], head), { cluster: 'home', normalize: NONE })
    .summary;
}

describe('render errors of charts unavailable offline', () => {
  it('does not count a head-only offline chart miss as introduced, but still a template failure', () => {
    const head = [notCached, templateFailure];
    const s = summary([], head);
    expect(s.errorsIntroduced).toEqual([templateFailure]);
  });

  it('does not count an offline chart miss that goes away as fixed', () => {
    expect(summary([notCached], []).errorsFixed).toEqual([]);
  });

  it('keeps counting a chart unavailable to an online render', () => {
    const online: RenderError = {
      ...notCached,
      message: 'chart unavailable: not found',
      offline: false,
    };
    expect(summary([], [online]).errorsIntroduced).toEqual([
      { producer: PODINFO, message: 'chart unavailable: not found' },
    ]);
  });

  it('does not let a base that could not be checked turn a head failure into an introduced one', () => {
    const headFailure: RenderError = { producer: PODINFO, message: 'a tag is required' };
    expect(summary([notCached], [headFailure]).errorsIntroduced).toEqual([]);
  });
});
