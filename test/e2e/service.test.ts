/**
 * The service end to end, server and worker as separate processes on a real Redis: GitHub's
 * webhook payloads signed for real, the repository fetched over git smart HTTP, and every
 * write checked in the GitHub emulator's state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_MARKER } from '../../src/review/index.js';
import { example, set } from '../unit/server/support/github-examples.js';
import { bootstrap, yamlStream } from '../support/repo.js';
import {
  eventually,
  INSTALLATION,
  OWNER,
  PULL,
  pullRequestPayload,
  REPO,
  sleep,
  startServiceWorld,
  type ServiceProcess,
  type ServiceWorld,
} from '../support/service.js';

const configMap = (color: string) =>
  yamlStream({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'app-config', namespace: 'apps' },
    data: { color },
  });
const claim = yamlStream({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'app-data', namespace: 'apps' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

/** Head 0 deletes the claim (danger: the check fails); heads 1 and 2 only recolour the ConfigMap. */
function fleet(step: 'base' | number): Record<string, string> {
  if (step === 'base') {
    return {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/config.yaml': configMap('red'),
      'clusters/prod/data.yaml': claim,
    };
  }
  if (step === 0) {
    return { 'clusters/prod/config.yaml': configMap('blue'), 'clusters/prod/data.yaml': '' };
  }
  return { 'clusters/prod/config.yaml': configMap(step === 1 ? 'green' : 'yellow') };
}

const runsFor = (world: ServiceWorld, sha: string) =>
  world.emulator.state().checkRuns.filter((r) => r.head_sha === sha && r.name === 'fluxlens');
const ourComments = (world: ServiceWorld) =>
  world.emulator.state().comments.filter((c) => c.body.includes(COMMENT_MARKER));
const completed = (world: ServiceWorld, sha: string) =>
  runsFor(world, sha).find((r) => r.status === 'completed');

/** Acceptance 1: opened -> check run in progress then completed from the gate, one comment. */
async function reviewsOpenedPull(world: ServiceWorld): Promise<void> {
  const head = world.pushHead(0);
  const response = await world.deliver('pull_request', pullRequestPayload('opened', head));
  expect(response.status).toBe(202);
  const run = await eventually(() => completed(world, head), 'a completed check run', 120_000);
  expect(run.conclusion).toBe('failure');
  expect(run.output.title).toMatch(/^DANGER/);
  const creates = world.emulator.requests('POST', `/repos/${OWNER}/${REPO}/check-runs`);
  expect(creates.map((r) => (r.body as { status?: string }).status)).toContain('in_progress');
  const comments = await eventually(
    () => (ourComments(world).length > 0 ? ourComments(world) : undefined),
    'the sticky comment',
  );
  expect(comments).toHaveLength(1);
  expect(comments[0]?.body).toContain('PersistentVolumeClaim');
  expect(comments[0]?.author).toBe('fluxlens-test[bot]');
}

/** Acceptance 3: a redelivery, a bad signature and a stranger's command change nothing. */
async function ignoresReplaysAndStrangers(world: ServiceWorld): Promise<void> {
  const head = world.revisions.heads[0] ?? '';
  const before = world.emulator.requests().length;
  const payload = pullRequestPayload('opened', head);
  const first = await world.deliver('pull_request', payload, { deliveryId: 'same-delivery' });
  const again = await world.deliver('pull_request', payload, { deliveryId: 'same-delivery' });
  expect([first.status, again.status]).toEqual([202, 200]);
  const forged = await world.deliver('pull_request', payload, { signature: 'sha256=00' });
  const unsigned = await world.deliver('pull_request', payload, { signature: null });
  expect([forged.status, unsigned.status]).toEqual([401, 401]);
  const comment = example('issue_comment', 'created');
  set(comment, 'issue.number', PULL);
  set(comment, 'issue.pull_request', { url: 'x' });
  set(comment, 'comment.body', '/fluxlens render');
  set(comment, 'comment.author_association', 'NONE');
  set(comment, 'repository', payload['repository']);
  set(comment, 'installation', { id: INSTALLATION });
  const stranger = await world.deliver('issue_comment', comment);
  expect(stranger.status).toBeLessThan(300);
  // The first delivery named the head already reviewed: nothing new may reach GitHub.
  await sleep(3000);
  const writes = world.emulator
    .requests()
    .slice(before)
    .filter((r) => r.method !== 'GET');
  expect(writes).toEqual([]);
  expect(ourComments(world)).toHaveLength(1);
}

/** Acceptance 2: a new head edits the same comment and completes a check run of its own. */
async function reviewsSynchronize(world: ServiceWorld): Promise<void> {
  const oldComment = ourComments(world)[0];
  const head = world.pushHead(1);
  const sync = await world.deliver('pull_request', pullRequestPayload('synchronize', head));
  expect(sync.status).toBe(202);
  const run = await eventually(() => completed(world, head), 'the new head checked', 120_000);
  expect(run.conclusion).toBe('success');
  await eventually(
    () => (ourComments(world)[0]?.body !== oldComment?.body ? true : undefined),
    'the comment edited',
  );
  expect(ourComments(world)).toHaveLength(1);
  expect(ourComments(world)[0]?.id).toBe(oldComment?.id);
}

/** Acceptance 2: a head replaced while its review runs never publishes a result. */
async function supersededHeadPublishesNothing(world: ServiceWorld): Promise<void> {
  const held = world.gitServer.holdNext();
  const stale = world.pushHead(2);
  await world.deliver('pull_request', pullRequestPayload('synchronize', stale));
  await held.arrived;
  const fresh = world.pushHead(0);
  const doneBefore = runsFor(world, fresh).filter((r) => r.status === 'completed').length;
  await world.deliver('pull_request', pullRequestPayload('synchronize', fresh));
  held.release();
  await eventually(
    () =>
      runsFor(world, fresh).filter((r) => r.status === 'completed').length > doneBefore
        ? true
        : undefined,
    'the newer head reviewed',
    120_000,
  );
  await sleep(1000);
  expect(completed(world, stale)).toBeUndefined();
  expect(ourComments(world)).toHaveLength(1);
  expect(ourComments(world)[0]?.body).toContain('PersistentVolumeClaim');
}

/** The acceptance scenarios both modes pass, Redis with separate processes and inline. */
const SCENARIOS: Array<[string, (world: ServiceWorld) => Promise<void>]> = [
  [
    'reviews an opened PR: a check run in progress, then completed from the gate, and one comment',
    reviewsOpenedPull,
  ],
  [
    'ignores a redelivery, a bad signature and a command from a non-collaborator',
    ignoresReplaysAndStrangers,
  ],
  [
    'reviews a new head on synchronize: the same comment is edited, a new check run completes',
    reviewsSynchronize,
  ],
  ['never publishes the review of a head replaced while it runs', supersededHeadPublishesNothing],
];

describe('the service with Redis, server and worker as separate processes', () => {
  let world: ServiceWorld;
  let server: ServiceProcess;
  let worker: ServiceProcess;

  beforeAll(async () => {
    world = await startServiceWorld(fleet, { redis: true });
    server = await world.start('serve');
    worker = await world.start('worker');
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  it.each(SCENARIOS)('%s', (_name, scenario) => scenario(world), 180_000);

  it('re-renders through the API with the token and refuses without it', async () => {
    const url = `${world.serverUrl}/api/v1/renders`;
    const request = { owner: OWNER, repo: REPO, pull_number: PULL };
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(refused.status).toBe(401);
    const head = world.pushHead(1);
    const before = runsFor(world, head).filter((r) => r.status === 'completed').length;
    const accepted = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${world.secrets.apiToken}`,
      },
      body: JSON.stringify(request),
    });
    expect(accepted.status).toBe(202);
    const { jobId } = (await accepted.json()) as { jobId: string };
    expect(await pollJob(world, jobId)).toBe('completed');
    // An explicit re-render of a reviewed head completes a run again.
    expect(runsFor(world, head).filter((r) => r.status === 'completed').length).toBe(before + 1);
  }, 180_000);

  it('finishes the review of a worker killed mid-job in another worker, with one comment', async () => {
    const held = world.gitServer.holdNext();
    const head = world.pushHead(2);
    const sync = await world.deliver('pull_request', pullRequestPayload('synchronize', head));
    expect(sync.status).toBe(202);
    await held.arrived;
    worker.kill('SIGKILL');
    await worker.exited;
    held.release();
    worker = await world.start('worker');
    const run = await eventually(() => completed(world, head), 'the review finished', 120_000);
    expect(run.conclusion).toBe('success');
    expect(ourComments(world)).toHaveLength(1);
  }, 180_000);

  it('never writes a secret it was given to its logs', () => {
    for (const output of [server.output(), worker.output()]) {
      for (const secret of [world.secrets.webhook, world.secrets.apiToken]) {
        expect(output).not.toContain(secret);
      }
      expect(output).not.toContain('PRIVATE KEY');
    }
  });
});

describe('the service without Redis: inline queue and worker in the server process', () => {
  let world: ServiceWorld;

  beforeAll(async () => {
    world = await startServiceWorld(fleet, { redis: false });
    const server = await world.start('serve');
    expect(server.output()).toContain('reviews run in this process on an inline queue');
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  it.each(SCENARIOS)('%s', (_name, scenario) => scenario(world), 180_000);

  it('counts review stages and GitHub answers on /metrics', async () => {
    const text = await (await fetch(`${world.serverUrl}/metrics`)).text();
    expect(text).toMatch(
      /fluxlens_review_stage_duration_seconds_count\{stage="render-base"\} [1-9]/,
    );
    expect(text).toMatch(/fluxlens_github_requests_total\{status="201"\} [1-9]/);
    expect(text).toMatch(/fluxlens_webhook_deliveries_total\{[^}]*\} [1-9]/);
  });
});

async function pollJob(world: ServiceWorld, jobId: string): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const response = await fetch(`${world.serverUrl}/api/v1/renders/${jobId}`, {
      headers: { authorization: `Bearer ${world.secrets.apiToken}` },
    });
    const state = (await response.json()) as { status?: string };
    if (state.status === 'completed' || state.status === 'failed') return state.status;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${state.status ?? '?'}`);
    await sleep(200);
  }
}
