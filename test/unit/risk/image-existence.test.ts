/**
 * image-missing and image-unchecked judge the answers the image check was given, for the
 * images a change brings in: a 404 is missing, no answer is "not checked", and an image a
 * container already ran, or one without an answer, is left alone.
 */
import { describe, expect, it } from 'vitest';
import type { ImageAnswer } from '../../../src/model/index.js';
import { DEFAULT_POLICY, type Policy } from '../../../src/policy/types.js';
import { evaluateRisk, imageQueries } from '../../../src/risk/index.js';
import { cluster, container, deployment, pairDiff, type Scenario } from './scenario.js';

const withImages = (name: string, ...images: string[]) =>
  deployment(
    name,
    {},
    { containers: images.map((image, i) => container(i === 0 ? 'app' : `side-${i}`, { image })) },
  );

const MISSING: ImageAnswer = { state: 'missing', registry: 'ghcr.io' };
const UNCHECKED: ImageAnswer = {
  state: 'unchecked',
  reason: 'ghcr.io refused the connection (ECONNREFUSED)',
};
const PRESENT: ImageAnswer = { state: 'present' };

function inputOf(s: Scenario, policy: Partial<Policy> = {}) {
  const base = cluster(s.base);
  const head = cluster(s.head);
  return {
    clusters: [{ name: 'home', diff: pairDiff('home', base, head), base, head }],
    policy: { ...DEFAULT_POLICY, checkImages: true as const, ...policy },
  };
}

function judged(s: Scenario, answers: Record<string, ImageAnswer>): string[] {
  const findings = evaluateRisk({ ...inputOf(s), images: new Map(Object.entries(answers)) });
  return findings
    .filter((f) => f.rule === 'image-missing' || f.rule === 'image-unchecked')
    .map((f) => `${f.rule} ${f.resource.name}`)
    .sort();
}

const WEB_1 = 'ghcr.io/acme/web:1.0.0';
const WEB_2 = 'ghcr.io/acme/web:2.0.0';

describe('image-missing and image-unchecked', () => {
  it.each<[string, Scenario, Record<string, ImageAnswer>, string[]]>([
    [
      'flags a new tag its registry does not have as missing',
      { base: [withImages('web', WEB_1)], head: [withImages('web', WEB_2)] },
      { [WEB_2]: MISSING },
      ['image-missing web'],
    ],
    [
      'flags a new object whose image its registry does not have',
      { base: [], head: [withImages('api', WEB_2)] },
      { [WEB_2]: MISSING },
      ['image-missing api'],
    ],
    [
      'says an image whose registry could not be asked was not checked',
      { base: [withImages('web', WEB_1)], head: [withImages('web', WEB_2)] },
      { [WEB_2]: UNCHECKED },
      ['image-unchecked web'],
    ],
    [
      'stays quiet about an image its registry has',
      { base: [withImages('web', WEB_1)], head: [withImages('web', WEB_2)] },
      { [WEB_2]: PRESENT },
      [],
    ],
    [
      'stays quiet about an image the container already ran, whatever the answer',
      {
        base: [withImages('web', WEB_1)],
        head: [
          deployment('web', { replicas: 3 }, { containers: [container('app', { image: WEB_1 })] }),
        ],
      },
      { [WEB_1]: MISSING },
      [],
    ],
    [
      'stays quiet about a removed object',
      { base: [withImages('web', WEB_2)], head: [] },
      { [WEB_2]: MISSING },
      [],
    ],
    [
      'stays quiet without answers (the policy did not ask)',
      { base: [withImages('web', WEB_1)], head: [withImages('web', WEB_2)] },
      {},
      [],
    ],
  ])('%s', (_name, scenario, answers, expected) => {
    expect(judged(scenario, answers)).toEqual(expected);
  });

  it('names the container, the image and the registry in a danger finding', () => {
    const scenario = { base: [withImages('web', WEB_1)], head: [withImages('web', WEB_2)] };
    const finding = evaluateRisk({
      ...inputOf(scenario),
      images: new Map([[WEB_2, MISSING]]),
    }).find((f) => f.rule === 'image-missing');
    expect(finding).toMatchObject({
      rule: 'image-missing',
      level: 'danger',
      resource: { kind: 'Deployment', namespace: 'web', name: 'web' },
      message:
        'Deployment web/web: container app runs ghcr.io/acme/web:2.0.0, which ghcr.io does not have (HTTP 404 for its manifest): pods would fail to pull it and the rollout would stall.',
    });
  });

  it('gives the reason an image was not checked', () => {
    const scenario = { base: [withImages('web', WEB_1)], head: [withImages('web', WEB_2)] };
    const finding = evaluateRisk({
      ...inputOf(scenario),
      images: new Map([[WEB_2, UNCHECKED]]),
    }).find((f) => f.rule === 'image-unchecked');
    expect(finding?.level).toBe('info');
    expect(finding?.message).toContain('was not checked: ghcr.io refused the connection');
  });
});

describe('imageQueries', () => {
  it('asks once about each image the changes bring in, split for the registry API', () => {
    const digest = `sha256:${'c'.repeat(64)}`;
    const scenario: Scenario = {
      base: [withImages('web', WEB_1, 'nginx:1.27')],
      head: [
        withImages('web', WEB_2, 'nginx:1.27'),
        withImages('api', WEB_2, `127.0.0.1:5000/team/api:3.1@${digest}`),
      ],
    };
    const { clusters, policy } = inputOf(scenario);
    expect(imageQueries(clusters, policy)).toEqual([
      {
        image: `127.0.0.1:5000/team/api:3.1@${digest}`,
        registry: '127.0.0.1:5000',
        path: 'team/api',
        reference: digest,
      },
      { image: WEB_2, registry: 'ghcr.io', path: 'acme/web', reference: '2.0.0' },
    ]);
  });

  it('asks about Docker Hub short names at docker.io, untagged as latest', () => {
    const { clusters, policy } = inputOf({ base: [], head: [withImages('web', 'redis')] });
    expect(imageQueries(clusters, policy)).toEqual([
      { image: 'redis', registry: 'docker.io', path: 'library/redis', reference: 'latest' },
    ]);
  });
});
