import { describe, expect, it } from 'vitest';
import { seriesOf } from '../../../src/risk/kit/versions.js';
import {
  PODINFO,
  container,
  deployment,
  findingsOf,
  fired,
  helmRelease,
  obj,
  place,
  type Scenario,
} from './scenario.js';

const withImage = (image: string, name = 'app') =>
  deployment('web', {}, { containers: [container(name, { image })] });
const chartVersion = (version: string) =>
  helmRelease(PODINFO, {
    chart: {
      spec: { chart: 'podinfo', version, sourceRef: { kind: 'HelmRepository', name: 'podinfo' } },
    },
  });
const charted = (chart: string, replicas: number) =>
  place(
    obj(
      'apps/v1',
      'Deployment',
      'podinfo',
      'podinfo',
      { spec: { replicas } },
      { labels: { 'helm.sh/chart': chart } },
    ),
    { producer: PODINFO },
  );
const DIGEST = 'sha256:' + 'a'.repeat(64);

describe('supply chain', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a major chart version bump on a HelmRelease',
      { base: [chartVersion('5.2.1')], head: [chartVersion('6.0.0')] },
      ['chart-major-bump'],
    ],
    [
      'stays quiet for a minor chart version bump',
      { base: [chartVersion('6.0.0')], head: [chartVersion('6.1.0')] },
      [],
    ],
    [
      'flags a major chart bump seen only in the helm.sh/chart label',
      { base: [charted('redis-17.3.2', 1)], head: [charted('redis-18.0.0', 2)] },
      ['chart-major-bump'],
    ],
    [
      'reports a chart bump once when the HelmRelease and its objects both show it',
      {
        base: [chartVersion('5.2.1'), charted('podinfo-5.2.1', 1)],
        head: [chartVersion('6.0.0'), charted('podinfo-6.0.0', 2)],
      },
      ['chart-major-bump'],
    ],
    [
      'flags a 0.x minor chart bump as breaking under semver',
      { base: [chartVersion('0.15.2')], head: [chartVersion('0.16.0')] },
      ['chart-major-bump'],
    ],
    [
      'stays quiet for a 0.x patch chart bump',
      { base: [chartVersion('0.15.2')], head: [chartVersion('0.15.3')] },
      [],
    ],
    [
      'flags a 0.x minor chart bump seen only in the helm.sh/chart label',
      { base: [charted('vector-0.15.2', 1)], head: [charted('vector-0.16.0', 2)] },
      ['chart-major-bump'],
    ],
    [
      'flags a 0.x minor image bump as breaking under semver',
      {
        base: [withImage('ghcr.io/home-operations/qbittorrent:0.15.2@' + DIGEST)],
        head: [withImage('ghcr.io/home-operations/qbittorrent:0.16.0@' + DIGEST)],
      },
      ['image-major-bump'],
    ],
    [
      'stays quiet for a 0.x patch image bump',
      {
        base: [withImage('ghcr.io/example/app:v0.15.2@' + DIGEST)],
        head: [withImage('ghcr.io/example/app:v0.15.3@' + DIGEST)],
      },
      [],
    ],
    [
      'flags a major image version bump',
      {
        base: [withImage('ghcr.io/example/app:1.9.3@' + DIGEST)],
        head: [withImage('ghcr.io/example/app:v2.0.0@' + DIGEST)],
      },
      ['image-major-bump'],
    ],
    [
      'stays quiet for a minor image bump with a digest',
      {
        base: [withImage('nginx:1.25.3@' + DIGEST)],
        head: [withImage('docker.io/library/nginx:1.26.0@' + DIGEST)],
      },
      [],
    ],
    [
      'flags a major image bump between two spellings of one Docker Hub repository',
      {
        base: [withImage('registry-1.docker.io/library/nginx:1.25.3@' + DIGEST)],
        head: [withImage('nginx:2.0.0@' + DIGEST)],
      },
      ['image-major-bump'],
    ],
    [
      'stays quiet when the image moves to another repository',
      { base: [withImage('nginx:1.25@' + DIGEST)], head: [withImage('caddy:2.8@' + DIGEST)] },
      [],
    ],
    [
      'stays quiet for tags that are not versions',
      {
        base: [withImage('app:sha-1a2b3c@' + DIGEST)],
        head: [withImage('app:sha-9f8e7d@' + DIGEST)],
      },
      [],
    ],
    [
      'marks a new image without a digest as info',
      { base: [], head: [withImage('nginx:1.25.3')] },
      ['image-unpinned'],
    ],
    [
      'marks a new latest image as info',
      { base: [withImage('nginx:1.25.3@' + DIGEST)], head: [withImage('nginx:latest')] },
      ['image-unpinned'],
    ],
    [
      'marks an image without a tag as info',
      { base: [], head: [withImage('nginx')] },
      ['image-unpinned'],
    ],
    [
      'stays quiet for a new image pinned by digest',
      { base: [], head: [withImage('nginx:1.25.3@' + DIGEST)] },
      [],
    ],
    [
      'stays quiet when the unpinned image was already there at base',
      {
        base: [withImage('nginx:1.25.3')],
        head: [
          deployment(
            'web',
            { replicas: 7 },
            { containers: [container('app', { image: 'nginx:1.25.3' })] },
          ),
        ],
      },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'supply-chain')).toEqual(expected);
  });

  it('attributes a label-only chart bump to the release and names both versions', () => {
    const [finding] = findingsOf(
      { base: [charted('redis-17.3.2', 1)], head: [charted('redis-18.0.0', 2)] },
      'chart-major-bump',
    );
    expect(finding).toMatchObject({
      level: 'caution',
      resource: { kind: 'HelmRelease', namespace: 'podinfo', name: 'podinfo' },
    });
    expect(finding?.message).toContain('chart redis from 17.3.2 to 18.0.0');
  });

  it.each([
    ['v1.2.3', '1'],
    ['1.25-alpine', '1'],
    ['2', '2'],
    ['0.15.2', '0.15'],
    ['v0.16', '0.16'],
    ['latest', undefined],
    ['sha-123abc', undefined],
  ])('reads the compatible series of tag %s', (tag, series) => {
    expect(seriesOf(tag)).toBe(series);
  });

  it('says a 0.x minor bump is breaking under semver', () => {
    const [chart] = findingsOf(
      { base: [chartVersion('0.15.2')], head: [chartVersion('0.16.0')] },
      'chart-major-bump',
    );
    expect(chart?.message).toBe(
      'HelmRelease podinfo/podinfo moves chart podinfo from 0.15.2 to 0.16.0, a new 0.x minor version, which semver lets break anything: expect breaking changes in values and in what it deploys.',
    );
    const [image] = findingsOf(
      {
        base: [withImage('ghcr.io/example/app:0.15.2')],
        head: [withImage('ghcr.io/example/app:0.16.0')],
      },
      'image-major-bump',
    );
    expect(image?.message).toBe(
      'Deployment web/web: container app moves ghcr.io/example/app from 0.15.2 to 0.16.0, a new 0.x minor version, which semver lets break anything: it may break compatibility.',
    );
  });

  it.each([
    ['nginx:1.25.3@' + DIGEST, 'nginx:2.0.0@' + DIGEST, 'moves nginx from 1.25.3 to 2.0.0'],
    [
      'nginx:1.25.3',
      'docker.io/library/nginx:2.0.0',
      'moves docker.io/library/nginx from 1.25.3 to 2.0.0',
    ],
    [
      'registry:5000/team/app:1.0',
      'registry:5000/team/app:2.0@' + DIGEST,
      'moves registry:5000/team/app from 1.0 to 2.0',
    ],
  ])(
    'names the repository of a major image bump as the manifest writes it (%s to %s)',
    (from, to, words) => {
      const [finding] = findingsOf(
        { base: [withImage(from)], head: [withImage(to)] },
        'image-major-bump',
      );
      expect(finding?.message).toContain(words);
    },
  );
});
