/**
 * The periodic resync recovers webhooks lost while fluxlens was down: every open PR whose
 * head has no result is queued once, through the real GitHub client and an inline queue.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createInlineQueue, type InlineQueue } from '../../src/queue/index.js';
import { resyncOpenPulls, type ResyncDeps } from '../../src/server/index.js';
import {
  finish,
  HEAD_SHA,
  REPO,
  startAppFixture,
  startTokenFixture,
  type Fixture,
} from '../support/github-fixture.js';

let fixture: Fixture | undefined;
let queue: InlineQueue | undefined;

afterEach(async () => {
  await queue?.close();
  await finish(fixture);
  fixture = undefined;
  queue = undefined;
});

const logger = createLogger({ level: 'silent' });
const sha = (c: string) => c.repeat(40);

function seedPulls(f: Fixture): void {
  const pull = (number: number, extra: object = {}) =>
    f.emulator.seedPull({
      ...REPO,
      number,
      headSha: sha(String(number)),
      baseRef: 'main',
      ...extra,
    });
  pull(1);
  pull(2, { draft: true });
  pull(3, { fork: true });
  pull(4);
  pull(5, { state: 'closed' });
}

function deps(f: Fixture, q: InlineQueue, extra: Partial<ResyncDeps> = {}): ResyncDeps {
  return {
    github: f.client,
    queue: q,
    results: q.results,
    logger,
    renderDrafts: false,
    renderForks: false,
    ...extra,
  };
}

describe('the periodic resync', () => {
  it('queues each open PR of each installation whose head has no result, once', async () => {
    fixture = await startAppFixture();
    fixture.emulator.allow('GET', '**');
    fixture.emulator.allow('POST', '/app/installations/:id/access_tokens');
    seedPulls(fixture);
    queue = createInlineQueue();
    await queue.results.put({ ...REPO, pullNumber: 4 }, sha('4'), '{}');

    const first = await resyncOpenPulls(deps(fixture, queue));
    // 1 is queued; 2 is a draft, 3 a fork, 4 already reviewed at its head, 5 closed.
    expect(first).toEqual({ pulls: 4, enqueued: 1 });
    expect((await queue.depth()).waiting).toBe(1);
    const again = await resyncOpenPulls(deps(fixture, queue));
    expect(again).toEqual({ pulls: 4, enqueued: 0 });
    expect((await queue.depth()).waiting).toBe(1);
  });

  it('includes drafts and forks when the service renders them', async () => {
    fixture = await startAppFixture();
    fixture.emulator.allow('GET', '**');
    fixture.emulator.allow('POST', '/app/installations/:id/access_tokens');
    seedPulls(fixture);
    queue = createInlineQueue();
    const summary = await resyncOpenPulls(
      deps(fixture, queue, { renderDrafts: true, renderForks: true }),
    );
    expect(summary).toEqual({ pulls: 4, enqueued: 4 });
  });

  it('resyncs only the listed repositories in token mode, where no installation lists them', async () => {
    fixture = await startTokenFixture();
    fixture.emulator.allow('GET', '**');
    fixture.emulator.seedPull({ ...REPO, number: 9, headSha: HEAD_SHA, baseRef: 'main' });
    fixture.emulator.seedPull({ owner: 'acme', repo: 'other', number: 1, headSha: sha('b') });
    queue = createInlineQueue();
    const summary = await resyncOpenPulls(
      deps(fixture, queue, { repositories: [`${REPO.owner}/${REPO.repo}`] }),
    );
    expect(summary).toEqual({ pulls: 1, enqueued: 1 });
  });
});
