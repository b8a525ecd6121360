/**
 * image-unpinned reports an unpinned reference the pull request brings in. An image that
 * ran the moving latest tag at base and gets a tag is pinned better, if not by digest:
 * it was unpinned already, so that is nothing new.
 */
import { describe, expect, it } from 'vitest';
import { container, deployment, findingsOf, fired, type Scenario } from './scenario.js';

const withImage = (image: string) =>
  deployment('web', {}, { containers: [container('app', { image })] });
const DIGEST = 'sha256:' + 'b'.repeat(64);
const change = (from: string, to: string): Scenario => ({
  base: [withImage(from)],
  head: [withImage(to)],
});

describe('image-unpinned on a changed image', () => {
  it.each<[string, Scenario, string[]]>([
    ['stays quiet when an untagged image gets a tag', change('nginx', 'nginx:1.27'), []],
    ['stays quiet when a latest image gets a tag', change('nginx:latest', 'nginx:1.27'), []],
    [
      'stays quiet when an untagged image is spelled with latest or in full',
      change('nginx', 'docker.io/library/nginx:latest'),
      [],
    ],
    ['flags a tagged image that drops its tag', change('nginx:1.27', 'nginx'), ['image-unpinned']],
    [
      'flags a digest-pinned image that loses its digest',
      change(`nginx:1.27@${DIGEST}`, 'nginx:1.27'),
      ['image-unpinned'],
    ],
    [
      'flags an untagged image replaced by another repository',
      change('nginx', 'caddy:2.8'),
      ['image-unpinned'],
    ],
    ['flags a new tag of a tagged image', change('nginx:1.26', 'nginx:1.27'), ['image-unpinned']],
    ['stays quiet when an untagged image gets a digest', change('nginx', `nginx@${DIGEST}`), []],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'supply-chain').filter((r) => r === 'image-unpinned')).toEqual(expected);
  });

  it('says which container lost its tag', () => {
    const [finding] = findingsOf(change('nginx:1.27', 'nginx'), 'image-unpinned');
    expect(finding?.message).toBe(
      'Deployment web/web: container app runs nginx, the moving latest tag: each new pod may get a different image.',
    );
  });
});
