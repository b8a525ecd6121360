/**
 * A worker dies (SIGKILL) in the middle of a review: the job it held is taken over by the
 * other worker once its lock runs out, and the PR ends with one check run for its head,
 * completed, and one comment. The review is held mid-way by stalling its git fetch.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultFleet } from '../support/fault-fleet.js';
import {
  jobIdsOf,
  logLines,
  ourComments,
  reviewed,
  runsFor,
  settledJob,
} from '../support/fault-checks.js';
import { expectNoSecretLeaks } from '../support/secret-scan.js';
import {
  eventually,
  PULL,
  pullRequestPayload,
  startServiceWorld,
  type ServiceProcess,
  type ServiceWorld,
} from '../support/service.js';

const fleet = faultFleet();

describe('a worker killed mid-review', () => {
  let world: ServiceWorld;
  const processes: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];

  beforeAll(async () => {
    world = await startServiceWorld(fleet.files, { redis: true });
    processes.push(await world.start('serve'));
    // Two machines: each worker has a cache of its own, and holds a job 2 s unrenewed.
    for (const name of ['a', 'b']) {
      const worker = await world.start('worker', {
        FLUXLENS_CACHE_DIR: join(world.cacheDir, `worker-${name}`),
        FLUXLENS_WORKER_CONCURRENCY: '1',
        FLUXLENS_WORKER_LOCK_SECONDS: '2',
      });
      workers.push(worker);
      processes.push(worker);
    }
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  it('is finished by the other worker: one completed check run for the head and one comment', async () => {
    const held = world.gitServer.holdNext();
    const head = world.pushHead(0);
    const response = await world.deliver('pull_request', pullRequestPayload('opened', head));
    expect(response.status).toBe(202);
    const [jobId] = await jobIdsOf(response);
    expect(jobId).toBeDefined();

    // The job is running: its check run is in progress and its fetch is at the git server.
    await held.arrived;
    await eventually(
      () => runsFor(world, head).find((r) => r.status === 'in_progress'),
      'the check run in progress',
    );
    const startedIt = (w: ServiceProcess) =>
      logLines(w, 'job started').some((line) => line['jobId'] === jobId);
    const victim = await eventually(() => workers.find(startedIt), 'the worker running the job');
    const survivor = workers.find((w) => w !== victim);
    expect(survivor).toBeDefined();
    victim.kill('SIGKILL');
    expect(await victim.exited).toBe('SIGKILL');
    // The dead worker's git fetch may now finish into its own cache; nobody reads it.
    held.release();

    const run = await reviewed(world, head);
    expect(run.conclusion).toBe('success');
    expect(runsFor(world, head)).toHaveLength(1);
    const comment = await eventually(() => ourComments(world, PULL)[0], 'the sticky comment');
    expect(comment.body).toContain('app-config');
    expect(ourComments(world, PULL)).toHaveLength(1);
    expect(survivor && startedIt(survivor)).toBe(true);
    expect(survivor && logLines(survivor, 'job stalled, returned to the queue')).not.toEqual([]);
    expect((await settledJob(world, jobId ?? '')).status).toBe('completed');
  }, 120_000);

  it('keeps every credential and the Secret value out of logs, GitHub, Redis and results', async () => {
    await expectNoSecretLeaks({
      world,
      processes,
      secrets: { 'the Secret value': fleet.secretValue },
    });
  });
});
