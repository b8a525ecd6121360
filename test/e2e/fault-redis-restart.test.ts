/**
 * Redis restarts (append-only persistence) while one review runs and two wait: no job is
 * lost, each PR is reviewed once, the server answers 503 while Redis is down, and the
 * periodic resync picks up the PR whose webhook came during the outage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultFleet } from '../support/fault-fleet.js';
import {
  counter,
  jobIdsOf,
  metricsOf,
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
  worldPull,
} from '../support/service.js';

const fleet = faultFleet();
/** Four PRs of the same repository, each with a head of its own. */
const PULLS = [PULL, PULL + 1, PULL + 2, PULL + 3];

/** GitHub marks a delivery failed when no answer came in 10 s. */
const GITHUB_WAITS_MS = 10_000;
const MISSED_DELIVERY = 'delivered-while-redis-was-down';

describe('Redis restarted while reviews are queued and running', () => {
  let world: ServiceWorld;
  let server: ServiceProcess;
  let worker: ServiceProcess;

  beforeAll(async () => {
    world = await startServiceWorld(fleet.files, { redis: true, heads: PULLS.length });
    server = await world.start('serve', { FLUXLENS_RESYNC_INTERVAL_SECONDS: '2' });
    worker = await world.start('worker', { FLUXLENS_WORKER_CONCURRENCY: '1' });
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  it('loses no job, refuses webhooks with 503 while down, and resyncs the PR it missed', async (ctx) => {
    if (world.redis?.canRestart !== true) return ctx.skip();
    // The first PR's review stalls at the git fetch; the next two wait behind it.
    const held = world.gitServer.holdNext();
    const jobs = new Map<number, string>();
    const heads = new Map<number, string>();
    for (const [i, pull] of PULLS.slice(0, 3).entries()) {
      const head = world.pushHead(i, pull);
      heads.set(pull, head);
      const response = await world.deliver(
        'pull_request',
        pullRequestPayload('opened', head, worldPull(pull)),
      );
      expect(response.status).toBe(202);
      const [jobId] = await jobIdsOf(response);
      jobs.set(pull, jobId ?? '');
      if (i === 0) await held.arrived;
    }
    const missed = PULLS[3] ?? 0;
    const missedPayload = (head: string) => pullRequestPayload('opened', head, worldPull(missed));
    let duringOutage: { webhook: number; readyz: number } | undefined;
    await world.redis.restart(async () => {
      // The PR opened while Redis is down: its delivery fails, in time for GitHub to hear.
      const head = world.pushHead(3, missed);
      heads.set(missed, head);
      const webhook = await world.deliver('pull_request', missedPayload(head), {
        deliveryId: MISSED_DELIVERY,
        signal: AbortSignal.timeout(GITHUB_WAITS_MS),
      });
      const readyz = await fetch(`${world.serverUrl}/readyz`);
      duringOutage = { webhook: webhook.status, readyz: readyz.status };
    });
    expect(duringOutage).toEqual({ webhook: 503, readyz: 503 });
    held.release();

    for (const pull of PULLS.slice(0, 3)) {
      expect((await settledJob(world, jobs.get(pull) ?? '')).status).toBe('completed');
    }
    for (const pull of PULLS) {
      const head = heads.get(pull) ?? '';
      expect((await reviewed(world, head)).conclusion).toBe('success');
      await eventually(() => ourComments(world, pull)[0], `the comment on #${pull}`);
    }
    // Once each: one check run per head, one comment per PR.
    for (const pull of PULLS) {
      expect(runsFor(world, heads.get(pull) ?? '')).toHaveLength(1);
      expect(ourComments(world, pull)).toHaveLength(1);
    }
    // The missed PR was queued by the resync (its job carries no delivery), and the
    // refused delivery shows on /metrics.
    const missedJobs = logLines(worker, 'job started').filter((l) => l['pullNumber'] === missed);
    expect(missedJobs.length).toBeGreaterThan(0);
    expect(missedJobs.map((l) => l['deliveryId'])).toEqual(missedJobs.map(() => undefined));
    expect(logLines(server, 'resync finished').some((l) => Number(l['enqueued']) >= 1)).toBe(true);
    // The failed delivery was not recorded: its redelivery is taken, as the duplicate of a
    // reviewed head rather than of itself.
    const redelivery = await world.deliver('pull_request', missedPayload(heads.get(missed) ?? ''), {
      deliveryId: MISSED_DELIVERY,
    });
    expect(redelivery.status).toBe(202);
    expect(await redelivery.json()).toMatchObject({ jobs: [{ status: 'duplicate' }] });
    const failed = 'fluxlens_webhook_deliveries_total{event="pull_request",outcome="failed"}';
    expect(counter(await metricsOf(world.serverUrl), failed)).toBeGreaterThanOrEqual(1);
  }, 150_000);

  it('keeps every credential and the Secret value out of logs, GitHub, Redis and results', async () => {
    await expectNoSecretLeaks({
      world,
      processes: [server, worker],
      secrets: { 'the Secret value': fleet.secretValue },
    });
  });
});
