/**
 * A burst of PRs on one base, as Renovate opens them: two workers, separate processes on a
 * real Redis sharing one cache folder, each take a PR at once. The base is rendered by one
 * of them; the other waits for that render and reads it back from the render cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logLines, reviewed } from '../support/fault-checks.js';
import { configMapApp, configMapApps } from '../support/repo.js';
import {
  PULL,
  pullRequestPayload,
  startServiceWorld,
  type ServiceProcess,
  type ServiceWorld,
  worldPull,
} from '../support/service.js';

const APPS = 6;

/** Six apps; head i recolours app i, a one-line change on the same base. */
function fleet(step: 'base' | number): Record<string, string> {
  if (step !== 'base')
    return { [`apps/app-${step}/config.yaml`]: configMapApp(step, { color: 'blue' }) };
  return configMapApps(APPS, () => ({ color: 'red' }));
}

/** What each review a worker finished counted: renders read back whole, builds run. */
const reviewsOf = (worker: ServiceProcess) =>
  logLines(worker, 'analysis finished').map((line) => {
    const timings = (line['timings'] ?? {}) as Record<string, number>;
    return { kept: timings['renders-kept'] ?? 0, built: timings['builds-run'] ?? 0 };
  });

describe('a burst of PRs on one base, two workers sharing a cache folder', () => {
  let world: ServiceWorld;
  const workers: ServiceProcess[] = [];

  beforeAll(async () => {
    world = await startServiceWorld(fleet, { redis: true, heads: 2 });
    await world.start('serve');
    for (let i = 0; i < 2; i += 1) {
      workers.push(await world.start('worker', { FLUXLENS_WORKER_CONCURRENCY: '1' }));
    }
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  it('renders the base once: the other worker reads back the render the first kept', async () => {
    const heads = [0, 1].map((i) => world.pushHead(i, PULL + i));
    const answers = await Promise.all(
      heads.map((sha, i) =>
        world.deliver('pull_request', pullRequestPayload('opened', sha, worldPull(PULL + i))),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    for (const sha of heads)
      expect((await reviewed(world, sha, 120_000)).conclusion).toBe('success');

    const [first, second] = workers.map(reviewsOf);
    // One review each: neither worker was free to take the other's PR.
    expect([first?.length, second?.length]).toEqual([1, 1]);
    const reviews = [...(first ?? []), ...(second ?? [])];
    // A PR's head is a commit never rendered before: a review that kept no render built
    // its base, one that kept a render read the base back whole.
    const renderedBase = reviews.filter((r) => r.kept === 0);
    const readBase = reviews.filter((r) => r.kept === 1);
    expect(renderedBase).toHaveLength(1);
    expect(readBase).toHaveLength(1);
    expect(renderedBase[0]?.built).toBeGreaterThan(APPS);
    expect(readBase[0]?.built).toBeLessThan(APPS);
  }, 180_000);
});
