/**
 * What a review meets on the way out: a chart server that never answers, a kustomize that
 * crashes, a git fetch that fails. Each ends as a clear error of its own (a producer's in
 * the report, or the job's, retried) and the worker stays healthy for the next review.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultFleet } from '../support/fault-fleet.js';
import {
  jobIdsOf,
  logLines,
  ourComments,
  reviewed,
  runsFor,
  settledJob,
  storedResult,
} from '../support/fault-checks.js';
import {
  crashingKustomizeTools,
  startSilentServer,
  type CrashingTools,
} from '../support/faulty-tools.js';
import { fluxKustomization, yamlStream } from '../support/repo.js';
import { expectNoSecretLeaks } from '../support/secret-scan.js';
import {
  eventually,
  freePort,
  PULL,
  pullRequestPayload,
  startServiceWorld,
  type ServiceProcess,
  type ServiceWorld,
} from '../support/service.js';

const silent = await startSilentServer();

/** Head 0 installs a chart from the silent server; head 1 adds a Kustomization kustomize crashes on. */
const fleet = faultFleet([
  {
    'clusters/prod/web.yaml': yamlStream(
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'HelmRepository',
        metadata: { name: 'silent', namespace: 'flux-system' },
        spec: { interval: '1h', url: silent.url },
      },
      {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        metadata: { name: 'web', namespace: 'apps' },
        spec: {
          interval: '10m',
          chart: {
            spec: {
              chart: 'web',
              version: '1.0.0',
              sourceRef: { kind: 'HelmRepository', name: 'silent', namespace: 'flux-system' },
            },
          },
        },
      },
    ),
  },
  {
    'clusters/prod/crashing.yaml': yamlStream(fluxKustomization('crashing', './crashing')),
    'crashing/kustomization.yaml': 'resources:\n  - config.yaml\n',
    'crashing/config.yaml': yamlStream({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'crash-test', namespace: 'apps' },
      data: { a: 'b' },
    }),
  },
]);

describe('tools and sources failing under a review', () => {
  let world: ServiceWorld;
  let tools: CrashingTools;
  let server: ServiceProcess;
  let worker: ServiceProcess;
  let workerUrl: string;

  beforeAll(async () => {
    tools = crashingKustomizeTools();
    world = await startServiceWorld(fleet.files, { redis: true });
    server = await world.start('serve');
    const port = await freePort();
    workerUrl = `http://127.0.0.1:${port}`;
    worker = await world.start('worker', {
      FLUXLENS_METRICS_PORT: String(port),
      FLUXLENS_TOOLS_DIR: tools.dir,
      // Every build is then a process of this folder's kustomize, which crashes on one.
      FLUXLENS_KUSTOMIZE_SERVER: 'off',
      FLUXLENS_CHART_RESPONSE_TIMEOUT_SECONDS: '1',
      FLUXLENS_CHART_PRIVATE_ADDRESSES: 'allow',
    });
  }, 120_000);

  afterAll(async () => {
    await world.close();
    await silent.close();
    tools.remove();
  });

  /** Delivers the head as the PR's new head and waits for its completed check run. */
  async function review(index: number) {
    const head = world.pushHead(index);
    const action = index === 0 ? 'opened' : 'synchronize';
    const response = await world.deliver('pull_request', pullRequestPayload(action, head));
    expect(response.status).toBe(202);
    const [jobId] = await jobIdsOf(response);
    const run = await reviewed(world, head);
    const job = await settledJob(world, jobId ?? '');
    const comment = await eventually(
      () => ourComments(world, PULL).find((c) => c.body.includes(head.slice(0, 7))),
      'the comment on this head',
    );
    expect(runsFor(world, head)).toHaveLength(1);
    expect((await fetch(`${workerUrl}/healthz`)).status).toBe(200);
    return { run, job, comment, jobId };
  }

  it('reports a chart server that never answers as the HelmRelease failing, and renders the rest', async () => {
    const { run, job, comment } = await review(0);
    expect(job.status).toBe('completed');
    expect(silent.connections()).toBeGreaterThan(0);
    for (const said of [run.output.summary, comment.body]) {
      expect(said).toMatch(
        /`HelmRelease\/apps\/web`: could not be rendered at head \(charts from 127\.0\.0\.1:\d+ unavailable\)/,
      );
    }
    expect(run.output.text).toContain('+  color: blue');
    const { errors } = await storedResult(world, PULL);
    expect(errors).toEqual([
      expect.objectContaining({
        producer: expect.objectContaining({ kind: 'HelmRelease', name: 'web' }),
        message: expect.stringMatching(
          /cannot fetch http:\/\/127\.0\.0\.1:(\d+)\/index\.yaml: 127\.0\.0\.1:\1 did not answer within 1 s/,
        ),
      }),
    ]);
  }, 90_000);

  it('reports a crashed kustomize as the Kustomization failing, and renders the rest', async () => {
    const { run, job, comment } = await review(1);
    expect(job.status).toBe('completed');
    const error =
      '`Kustomization/flux-system/crashing`: kustomize build failed: kustomize build crashing';
    for (const said of [run.output.summary, comment.body]) expect(said).toContain(error);
    expect(run.output.text).toContain('+  color: green');
  }, 90_000);

  it('retries a failed git fetch as the job failing, with the reason in its log, then reviews', async () => {
    world.gitServer.failNext(1, { status: 502, echoAuthorization: true });
    const { run, job, jobId } = await review(2);
    expect(run.conclusion).toBe('success');
    expect(job).toMatchObject({ status: 'completed', attempts: 2 });
    const failure = logLines(worker, 'review failed; it will be retried').find(
      (l) => l['jobId'] === jobId,
    );
    expect(failure?.['err']).toMatchObject({
      code: 'remote-unavailable',
      message: expect.stringMatching(
        /^fetching home-ops\/fleet \(main, pull 7\) failed: .*returned error: 502$/,
      ) as unknown,
    });
  }, 90_000);

  it('stays up, and keeps every credential and the Secret value out of what it wrote', async () => {
    expect((await fetch(`${workerUrl}/healthz`)).status).toBe(200);
    await expectNoSecretLeaks({
      world,
      processes: [server, worker],
      secrets: { 'the Secret value': fleet.secretValue },
    });
  });
});
