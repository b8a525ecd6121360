/**
 * A chart fluxlens could not have (a cold offline cache, the network, credentials) is not a
 * render error the PR introduced or fixed: Flux may well get it. (The cluster's errors
 * still list it, and the producer may be unassessed.)
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

  it('does not count a chart unreachable to an online render as introduced or fixed either', () => {
    const online: RenderError = {
      ...notCached,
      message: 'chart unavailable: cannot fetch http://127.0.0.1:9/index.yaml: ECONNREFUSED',
      offline: false,
    };
    expect(summary([], [online]).errorsIntroduced).toEqual([]);
    expect(summary([online], []).errorsFixed).toEqual([]);
  });

  it('still counts a chart version missing from a reachable index, which has no code', () => {
    const missing: RenderError = {
      producer: PODINFO,
      message: "chart error: chart 'podinfo': no version matching '9.9.9' in the repository index",
    };
    expect(summary([], [missing]).errorsIntroduced).toEqual([missing]);
  });

  it('does not let a base that could not be checked turn a head failure into an introduced one', () => {
    const headFailure: RenderError = { producer: PODINFO, message: 'a tag is required' };
    expect(summary([notCached], [headFailure]).errorsIntroduced).toEqual([]);
  });
});
