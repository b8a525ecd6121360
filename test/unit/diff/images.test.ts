/** Which images a PR moves, per repository, as the container runtime reads the references. */
import { describe, expect, it } from 'vitest';
import { parseImage } from '../../../src/diff/index.js';
import type { ImageChange } from '../../../src/model/index.js';
import type { Manifest } from '../../../src/model/render.js';
import { deployment, diff, rendered } from './build-cluster.js';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

describe('an image reference', () => {
  it.each<[string, string, string, string | undefined, string | undefined]>([
    ['nginx', 'docker.io/library/nginx', 'latest', undefined, undefined],
    ['nginx:1.25', 'docker.io/library/nginx', '1.25', '1.25', undefined],
    ['bitnami/redis:7.2', 'docker.io/bitnami/redis', '7.2', '7.2', undefined],
    ['docker.io/nginx:1', 'docker.io/library/nginx', '1', '1', undefined],
    ['index.docker.io/library/nginx:1', 'docker.io/library/nginx', '1', '1', undefined],
    ['ghcr.io/fluxcd/flux-cli:v2.3.0', 'ghcr.io/fluxcd/flux-cli', 'v2.3.0', 'v2.3.0', undefined],
    ['registry.local:5000/team/app:1.0', 'registry.local:5000/team/app', '1.0', '1.0', undefined],
    ['localhost:5000/app', 'localhost:5000/app', 'latest', undefined, undefined],
    ['localhost/app:2', 'localhost/app', '2', '2', undefined],
    [`nginx@${DIGEST}`, 'docker.io/library/nginx', DIGEST, undefined, DIGEST],
    [`nginx:1.25@${DIGEST}`, 'docker.io/library/nginx', `1.25@${DIGEST}`, '1.25', DIGEST],
    [`host:5000/x:tag@${DIGEST}`, 'host:5000/x', `tag@${DIGEST}`, 'tag', DIGEST],
    [
      'quay.io/prometheus/node-exporter',
      'quay.io/prometheus/node-exporter',
      'latest',
      undefined,
      undefined,
    ],
  ])('reads %s as %s at %s', (image, repository, reference, tag, digest) => {
    const ref = parseImage(image);
    expect(ref).toEqual({
      repository,
      reference,
      ...(tag !== undefined && { tag }),
      ...(digest !== undefined && { digest }),
    });
  });
});

const pod = (containers: Array<{ name: string; image: string }>): Manifest => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'debug', namespace: 'apps' },
  spec: { containers },
});

const cronJob = (image: string): Manifest => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'backup', namespace: 'apps' },
  spec: {
    schedule: '@daily',
    jobTemplate: { spec: { template: { spec: { containers: [{ name: 'job', image }] } } } },
  },
});

const withInit = (app: string, init: string): Manifest => {
  const d = deployment('web', [{ name: 'app', image: app }]);
  const spec = (d['spec'] as { template: { spec: Record<string, unknown> } }).template.spec;
  spec['initContainers'] = [{ name: 'migrate', image: init }];
  spec['ephemeralContainers'] = [{ name: 'debug', image: 'busybox:1.36' }];
  return d;
};

describe('image changes in the summary', () => {
  it.each<[string, Manifest[], Manifest[], ImageChange[]]>([
    [
      'a tag bump in a Deployment',
      [deployment('web', [{ name: 'app', image: 'nginx:1.25' }])],
      [deployment('web', [{ name: 'app', image: 'nginx:1.26' }])],
      [{ repository: 'docker.io/library/nginx', from: '1.25', to: '1.26' }],
    ],
    [
      'a pin to a digest',
      [deployment('web', [{ name: 'app', image: 'nginx:1.25' }])],
      [deployment('web', [{ name: 'app', image: `nginx:1.25@${DIGEST}` }])],
      [{ repository: 'docker.io/library/nginx', from: '1.25', to: `1.25@${DIGEST}` }],
    ],
    [
      'init containers, next to an unchanged app and ephemeral container',
      [withInit('app:1', 'ghcr.io/acme/migrate:1')],
      [withInit('app:1', 'ghcr.io/acme/migrate:2')],
      [{ repository: 'ghcr.io/acme/migrate', from: '1', to: '2' }],
    ],
    [
      'a CronJob job template',
      [cronJob('registry.local:5000/backup:1')],
      [cronJob('registry.local:5000/backup:2')],
      [{ repository: 'registry.local:5000/backup', from: '1', to: '2' }],
    ],
    [
      'a Pod whose image moved registry',
      [pod([{ name: 'c', image: 'bitnami/kubectl:1.30' }])],
      [pod([{ name: 'c', image: 'ghcr.io/bitnami/kubectl:1.30' }])],
      [
        { repository: 'docker.io/bitnami/kubectl', from: '1.30' },
        { repository: 'ghcr.io/bitnami/kubectl', to: '1.30' },
      ],
    ],
    [
      'a new Deployment',
      [],
      [deployment('web', [{ name: 'app', image: 'nginx:1.25' }])],
      [{ repository: 'docker.io/library/nginx', to: '1.25' }],
    ],
    [
      'a removed Deployment',
      [deployment('web', [{ name: 'app', image: 'nginx:1.25' }])],
      [],
      [{ repository: 'docker.io/library/nginx', from: '1.25' }],
    ],
  ])('lists %s', (_, base, head, images) => {
    const result = diff(
      base.map((m) => rendered(m)),
      head.map((m) => rendered(m)),
    );
    expect(result.summary.images).toEqual(images);
  });

  it.each<[string, Manifest, Manifest]>([
    [
      'a renamed container that keeps its image',
      deployment('web', [{ name: 'app', image: 'nginx:1.25' }]),
      deployment('web', [{ name: 'server', image: 'nginx:1.25' }]),
    ],
    [
      'the same image spelled out in full',
      deployment('web', [{ name: 'app', image: 'nginx:1.25' }]),
      deployment('web', [{ name: 'app', image: 'docker.io/library/nginx:1.25' }]),
    ],
  ])('lists nothing for %s', (_, base, head) => {
    expect(diff([rendered(base)], [rendered(head)]).summary.images).toEqual([]);
  });

  it('lists one change for many objects making the same bump, sorted by repository', () => {
    const bump = (name: string, tag: string) => [
      deployment(name, [
        { name: 'app', image: `nginx:${tag}` },
        { name: 'cache', image: `redis:${tag}` },
      ]),
    ];
    const base = [...bump('a', '1'), ...bump('b', '1')];
    const head = [...bump('a', '2'), ...bump('b', '2')];
    const result = diff(
      base.map((m) => rendered(m)),
      head.map((m) => rendered(m)),
    );
    expect(result.summary.images).toEqual([
      { repository: 'docker.io/library/nginx', from: '1', to: '2' },
      { repository: 'docker.io/library/redis', from: '1', to: '2' },
    ]);
  });
});
