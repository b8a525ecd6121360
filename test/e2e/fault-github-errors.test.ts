/**
 * GitHub answers a review's writes with 502 or with a 403 secondary rate limit and its
 * retry-after: each write is retried and lands once, by the client itself when the wait
 * is short, by the queue's retry of the job when GitHub asks for longer than a minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultFleet } from '../support/fault-fleet.js';
import {
  counter,
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
  freePort,
  OWNER,
  PULL,
  pullRequestPayload,
  REPO,
  type ServiceProcess,
  type ServiceWorld,
  startServiceWorld,
} from '../support/service.js';

const fleet = faultFleet();
const RUNS = `/repos/${OWNER}/${REPO}/check-runs`;
const COMMENTS = `/repos/${OWNER}/${REPO}/issues/${PULL}/comments`;
const secondaryLimit = (retryAfterSeconds: number) => ({
  status: 403,
  message:
    'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
  headers: { 'retry-after': String(retryAfterSeconds) },
});

describe('GitHub failing the writes of a review', () => {
  let world: ServiceWorld;
  let server: ServiceProcess;
  let worker: ServiceProcess;
  let workerUrl: string;

  beforeAll(async () => {
    world = await startServiceWorld(fleet.files, { redis: true });
    server = await world.start('serve');
    const port = await freePort();
    workerUrl = `http://127.0.0.1:${port}`;
    worker = await world.start('worker', { FLUXLENS_METRICS_PORT: String(port) });
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  /** The statuses GitHub gave the requests of one method and path, from `from` on. */
  const statuses = (method: string, path: string | RegExp, from: number) =>
    world.emulator
      .requests()
      .slice(from)
      .filter(
        (r) =>
          r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)),
      )
      .map((r) => r.status);

  it('retries a 502 and a short secondary rate limit, and each write lands once', async () => {
    const from = world.emulator.requests().length;
    world.emulator.fail('POST', RUNS, 'bad-gateway');
    world.emulator.fail('PATCH', `${RUNS}/*`, secondaryLimit(1));
    world.emulator.fail('POST', COMMENTS, 'bad-gateway');
    world.emulator.fail('POST', COMMENTS, secondaryLimit(1));
    const head = world.pushHead(0);
    const response = await world.deliver('pull_request', pullRequestPayload('opened', head));
    const [jobId] = await jobIdsOf(response);

    expect((await reviewed(world, head)).conclusion).toBe('success');
    await eventually(() => ourComments(world, PULL)[0], 'the sticky comment');
    expect(runsFor(world, head)).toHaveLength(1);
    expect(ourComments(world, PULL)).toHaveLength(1);
    expect(statuses('POST', RUNS, from)).toEqual([502, 201]);
    expect(statuses('PATCH', /\/check-runs\/\d+$/, from)).toEqual([403, 200]);
    expect(statuses('POST', COMMENTS, from)).toEqual([502, 403, 201]);
    // The client waited; the job itself never failed.
    expect(await settledJob(world, jobId ?? '')).toMatchObject({
      status: 'completed',
      attempts: 1,
    });
    const limits = logLines(worker, 'GitHub rate limit');
    expect(limits).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'secondary', willRetry: true })]),
    );
    const metrics = await (await fetch(`${workerUrl}/metrics`)).text();
    expect(counter(metrics, 'fluxlens_github_requests_total{status="502"}')).toBe(2);
    expect(counter(metrics, 'fluxlens_github_requests_total{status="403"}')).toBe(2);
  }, 90_000);

  it('leaves a rate limit of minutes to the queue: the job is retried and its comment lands once', async () => {
    const from = world.emulator.requests().length;
    const comment = ourComments(world, PULL)[0];
    world.emulator.fail(
      'PATCH',
      /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/\d+$/,
      secondaryLimit(120),
    );
    const head = world.pushHead(1);
    const response = await world.deliver('pull_request', pullRequestPayload('synchronize', head));
    const [jobId] = await jobIdsOf(response);

    const settled = await settledJob(world, jobId ?? '');
    expect(settled).toMatchObject({ status: 'completed', attempts: 2 });
    expect((await reviewed(world, head)).conclusion).toBe('success');
    // The check run completed on the first attempt is left as it is by the second.
    expect(runsFor(world, head)).toHaveLength(1);
    expect(runsFor(world, head)[0]?.writes).toBe(2);
    expect(statuses('PATCH', /\/issues\/comments\/\d+$/, from)).toEqual([403, 200]);
    expect(ourComments(world, PULL)).toHaveLength(1);
    expect(ourComments(world, PULL)[0]?.id).toBe(comment?.id);
    expect(ourComments(world, PULL)[0]?.body).toContain('green');
    const retried = logLines(worker, 'review failed; it will be retried');
    expect(retried.map((l) => l['jobId'])).toContain(jobId);
  }, 90_000);

  it('stays healthy, and keeps every credential and the Secret value out of what it wrote', async () => {
    expect((await fetch(`${workerUrl}/healthz`)).status).toBe(200);
    world.emulator.assertAllUsed();
    await expectNoSecretLeaks({
      world,
      processes: [server, worker],
      secrets: { 'the Secret value': fleet.secretValue },
    });
  });
});
