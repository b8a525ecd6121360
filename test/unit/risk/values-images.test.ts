/**
 * Images read from a HelmRelease's own values when its chart could not be rendered: the
 * rendered image table is empty there, so the values are all a reviewer has. Values are
 * shaped as bjw-s' app-template, bitnami charts and single-string charts write them.
 */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/model/finding.js';
import type { Manifest, Producer, ProducerRef, RenderError } from '../../../src/model/render.js';
import { DEFAULT_POLICY } from '../../../src/policy/types.js';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import { APPS, DEFAULT_PRODUCERS, cluster, obj, pairDiff, place, producer } from './scenario.js';

const SONARR: ProducerRef = { kind: 'HelmRelease', namespace: 'media', name: 'sonarr' };
const DIGEST = 'sha256:' + 'd'.repeat(64);

const release = (values: Record<string, unknown>): Manifest =>
  obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'sonarr', 'media', {
    spec: {
      interval: '1h',
      chartRef: { kind: 'OCIRepository', name: 'app-template' },
      install: { remediation: { retries: -1 } },
      values,
    },
  });

/** app-template's controllers, one container with the image spelled out. */
const appTemplate = (tag: string) =>
  release({
    controllers: {
      sonarr: {
        containers: {
          app: {
            image: { repository: 'ghcr.io/home-operations/sonarr', tag },
            env: { TZ: 'Europe/Paris' },
          },
        },
      },
    },
    service: { app: { ports: { http: { port: 80 } } } },
  });
const bitnami = (tag: string) =>
  release({
    image: { registry: 'docker.io', repository: 'bitnami/redis', tag },
    architecture: 'standalone',
  });
const plain = (image: string) => release({ image, replicas: 1 });

const UNAVAILABLE: RenderError = {
  producer: SONARR,
  message:
    'chart app-template from oci://ghcr.io/bjw-s-labs/helm/app-template: dial tcp: lookup ghcr.io: no such host',
  code: 'chart-unavailable',
};
const PRODUCERS: Producer[] = [
  ...DEFAULT_PRODUCERS,
  producer(SONARR, { definedIn: { parent: APPS } }),
];

type Render = 'unavailable' | 'rendered' | 'source not found';

function findings(before: Manifest, after: Manifest, render: Render = 'unavailable'): Finding[] {
  const errors = render === 'unavailable' ? [UNAVAILABLE] : [];
  const producers =
    render === 'source not found'
      ? [
          ...DEFAULT_PRODUCERS,
          producer(SONARR, {
            definedIn: { parent: APPS },
            skipped: 'OCIRepository media/app-template was not found',
          }),
        ]
      : PRODUCERS;
  const base = cluster([place(before)], producers, errors);
  const head = cluster([place(after)], producers, errors);
  return evaluateRisk({
    clusters: [{ name: 'home', diff: pairDiff('home', base, head), base, head }],
    policy: DEFAULT_POLICY,
  }).filter((f) => f.rule.startsWith('image-') || f.rule === 'values-image-changed');
}

const rules = (list: Finding[]) => list.map((f) => f.rule);

describe('images from the values of a release that was not rendered', () => {
  it.each<[string, Manifest, Manifest, Render, string[]]>([
    [
      'flags a major image bump in app-template values',
      appTemplate(`4.0.14.2938@${DIGEST}`),
      appTemplate(`5.0.1.3001@${DIGEST}`),
      'unavailable',
      ['image-major-bump'],
    ],
    [
      'flags a 0.x minor image bump in values as breaking',
      plain('ghcr.io/example/exporter:0.15.2'),
      plain('ghcr.io/example/exporter:0.16.0'),
      'unavailable',
      ['image-major-bump'],
    ],
    [
      'reports a minor image bump in values',
      appTemplate(`4.0.14.2938@${DIGEST}`),
      appTemplate(`4.0.15.2941@${DIGEST}`),
      'unavailable',
      ['values-image-changed'],
    ],
    [
      'reports a bitnami registry, repository and tag change',
      bitnami('7.4.2-debian-12-r0'),
      release({
        image: { registry: 'ghcr.io', repository: 'valkey-io/valkey', tag: '8.0.2' },
        architecture: 'standalone',
      }),
      'unavailable',
      ['values-image-changed'],
    ],
    [
      'reports a values image of a release whose source was not found',
      plain('ghcr.io/example/exporter:1.2.0'),
      plain('ghcr.io/example/exporter:1.3.0'),
      'source not found',
      ['values-image-changed'],
    ],
    [
      'stays quiet when the chart rendered: its containers are judged instead',
      appTemplate('4.0.14.2938'),
      appTemplate('5.0.1.3001'),
      'rendered',
      [],
    ],
    [
      'stays quiet for a values change that moves no image',
      bitnami('7.4.2-debian-12-r0'),
      release({
        image: { registry: 'docker.io', repository: 'bitnami/redis', tag: '7.4.2-debian-12-r0' },
        architecture: 'replication',
      }),
      'unavailable',
      [],
    ],
  ])('%s', (_name, before, after, render, expected) => {
    expect(rules(findings(before, after, render))).toEqual(expected);
  });

  it('marks the finding as from values, not rendered, and says why', () => {
    const [finding] = findings(
      appTemplate(`4.0.14.2938@${DIGEST}`),
      appTemplate(`5.0.1.3001@${DIGEST}`),
    );
    expect(finding).toMatchObject({
      rule: 'image-major-bump',
      level: 'caution',
      basis: 'values',
      resource: { kind: 'HelmRelease', namespace: 'media', name: 'sonarr' },
      producer: APPS,
    });
    expect(finding?.message).toBe(
      'HelmRelease media/sonarr: the image at values.controllers.sonarr.containers.app.image moves ghcr.io/home-operations/sonarr from 4.0.14.2938 to 5.0.1.3001, a new major version: it may break compatibility (from values, not rendered: chart unavailable).',
    );
  });

  it('names both references of another image, at info', () => {
    const [finding] = findings(bitnami('7.4.2-debian-12-r0'), bitnami('7.4.3-debian-12-r0'));
    expect(finding).toMatchObject({ rule: 'values-image-changed', level: 'info', basis: 'values' });
    expect(finding?.message).toBe(
      'HelmRelease media/sonarr: the image at values.image moves from docker.io/bitnami/redis:7.4.2-debian-12-r0 to docker.io/bitnami/redis:7.4.3-debian-12-r0 (from values, not rendered: chart unavailable).',
    );
  });
});
