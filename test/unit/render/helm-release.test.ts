import { describe, expect, it } from 'vitest';
import {
  HelmRelease,
  releaseName,
  releaseNamespace,
  shortenName,
  storageNamespace,
} from '../../../src/render/helm/helm-release.js';

function helmRelease(
  metadata: { name: string; namespace?: string },
  spec: Record<string, unknown> = {},
): HelmRelease {
  return HelmRelease.parse({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata,
    spec: {
      chart: { spec: { chart: 'podinfo', sourceRef: { kind: 'HelmRepository', name: 'podinfo' } } },
      ...spec,
    },
  });
}

// Hashes are the first 12 hex digits of sha256(name), computed with `sha256sum`.
describe('shortenName', () => {
  it.each([
    ['keeps a short name', 'podinfo', 'podinfo'],
    [
      'keeps a name of exactly 53 characters',
      'payments-api-canary-release-for-the-eu-west-1-cluster',
      'payments-api-canary-release-for-the-eu-west-1-cluster',
    ],
    [
      'cuts a 60-character name to 40 characters, a dash and 12 hex digits of its sha256',
      'observability-production-kube-prometheus-stack-operator-main',
      'observability-production-kube-prometheus-75cf7bad7df6',
    ],
    [
      'shortens a name just over the limit',
      'payments-api-canary-release-for-the-eu-west-1-cluster-blue',
      'payments-api-canary-release-for-the-eu-w-940e913721f4',
    ],
  ])('%s', (_behaviour, name, expected) => {
    const short = shortenName(name);
    expect(short).toBe(expected);
    expect(short.length).toBeLessThanOrEqual(53);
  });
});

describe('releaseName', () => {
  it.each([
    ['uses the HelmRelease name', { name: 'podinfo', namespace: 'apps' }, {}, 'podinfo'],
    [
      'prefixes the target namespace',
      { name: 'podinfo', namespace: 'flux-system' },
      { targetNamespace: 'apps' },
      'apps-podinfo',
    ],
    [
      'prefers spec.releaseName over the target namespace',
      { name: 'podinfo', namespace: 'flux-system' },
      { releaseName: 'frontend', targetNamespace: 'apps' },
      'frontend',
    ],
    [
      'shortens a composed name longer than 53 characters',
      { name: 'kube-prometheus-stack-operator-main', namespace: 'flux-system' },
      { targetNamespace: 'observability-production' },
      'observability-production-kube-prometheus-75cf7bad7df6',
    ],
    [
      'ignores an empty spec.releaseName',
      { name: 'podinfo', namespace: 'apps' },
      { releaseName: '' },
      'podinfo',
    ],
  ])('%s', (_behaviour, metadata, spec, expected) => {
    expect(releaseName(helmRelease(metadata, spec))).toBe(expected);
  });
});

describe('releaseNamespace', () => {
  it.each([
    [
      'installs into the target namespace',
      { namespace: 'flux-system' },
      { targetNamespace: 'apps' },
      'apps',
    ],
    ['installs into the HelmRelease namespace without a target', { namespace: 'apps' }, {}, 'apps'],
    [
      'ignores the storage namespace',
      { namespace: 'apps' },
      { storageNamespace: 'helm-state' },
      'apps',
    ],
    ['falls back to the default namespace', {}, {}, 'tenant-a'],
  ])('%s', (_behaviour, metadata, spec, expected) => {
    const hr = helmRelease({ name: 'podinfo', ...metadata }, spec);
    expect(releaseNamespace(hr, 'tenant-a')).toBe(expected);
  });

  it('defaults to the default namespace when nothing else names one', () => {
    expect(releaseNamespace(helmRelease({ name: 'podinfo' }))).toBe('default');
  });
});

describe('storageNamespace', () => {
  it.each([
    [
      'stores the release in spec.storageNamespace',
      { namespace: 'apps' },
      { storageNamespace: 'helm-state', targetNamespace: 'web' },
      'helm-state',
    ],
    [
      'stores the release beside the HelmRelease, not in the target namespace',
      { namespace: 'flux-system' },
      { targetNamespace: 'apps' },
      'flux-system',
    ],
    ['falls back to the default namespace', {}, {}, 'tenant-a'],
  ])('%s', (_behaviour, metadata, spec, expected) => {
    const hr = helmRelease({ name: 'podinfo', ...metadata }, spec);
    expect(storageNamespace(hr, 'tenant-a')).toBe(expected);
  });
});
