/**
 * Acknowledging a danger from the check run, end to end: the service (inline queue) against
 * the GitHub emulator, GitHub's check_run requested_action payload signed for real, and
 * what GitHub shows (the newest run of our name on a head, the sticky comment) checked in
 * the emulator's state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingId, type AnalysisResult } from '../../src/model/index.js';
import { COMMENT_MARKER } from '../../src/review/index.js';
import { example, set } from '../unit/server/support/github-examples.js';
import { bootstrap, yamlStream } from '../support/repo.js';
import {
  APP_ID,
  eventually,
  INSTALLATION,
  OWNER,
  PULL,
  pullRequestPayload,
  REPO,
  sleep,
  startServiceWorld,
  type ServiceWorld,
} from '../support/service.js';
import { appClaim, appConfigMap } from '../support/app-objects.js';

const WRITER = 'octo-writer';
const READER = 'octo-reader';

const configMap = (color: string) => yamlStream(appConfigMap(color));
const claim = yamlStream(appClaim);

/** Both heads delete the claim (the same danger); head 1 also recolours the ConfigMap. */
function fleetWith(policy: string | undefined) {
  return (step: 'base' | number): Record<string, string> => {
    if (step === 'base') {
      return {
        'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/config.yaml': configMap('red'),
        'clusters/prod/data.yaml': claim,
        ...(policy === undefined ? {} : { '.fluxlens.yaml': policy }),
      };
    }
    return {
      'clusters/prod/config.yaml': configMap(step === 0 ? 'red' : 'green'),
      'clusters/prod/data.yaml': '',
    };
  };
}

/** What GitHub shows for our check on a head: its newest run of our name. */
const shown = (world: ServiceWorld, sha: string) =>
  world.emulator
    .state()
    .checkRuns.filter((r) => r.head_sha === sha && r.name === 'fluxlens')
    .sort((a, b) => b.id - a.id)[0];
const comment = (world: ServiceWorld) =>
  world.emulator.state().comments.find((c) => c.body.includes(COMMENT_MARKER));

async function completedAs(world: ServiceWorld, sha: string, conclusion: string) {
  return eventually(
    () => {
      const run = shown(world, sha);
      return run?.status === 'completed' && run.conclusion === conclusion ? run : undefined;
    },
    `the check of ${sha.slice(0, 7)} completed as ${conclusion}`,
    120_000,
  );
}

/** GitHub's check_run requested_action example, pressed by `login` on our run of `head`. */
function pressed(world: ServiceWorld, head: string, login: string) {
  const payload = example('check_run', 'requested_action');
  const repository = pullRequestPayload('opened', head)['repository'];
  const branch = (ref: string, sha: string) => ({ ref, sha, repo: { id: 1 } });
  set(payload, 'repository', repository);
  set(payload, 'installation', { id: INSTALLATION });
  set(payload, 'check_run.name', 'fluxlens');
  set(payload, 'check_run.app.id', APP_ID);
  set(payload, 'check_run.head_sha', head);
  set(payload, 'check_run.pull_requests', [
    { number: PULL, head: branch('feature', head), base: branch('main', world.revisions.base) },
  ]);
  set(payload, 'requested_action', { identifier: 'acknowledge' });
  set(payload, 'sender.login', login);
  set(payload, 'sender.type', 'User');
  return payload;
}

/** Waits for the jobs a delivery made to finish (the worker ran them). */
async function settled(world: ServiceWorld, response: Response): Promise<void> {
  const body = (await response.json()) as { jobs?: Array<{ jobId?: string }> };
  const ids = (body.jobs ?? []).flatMap((j) => (j.jobId === undefined ? [] : [j.jobId]));
  expect(ids.length).toBeGreaterThan(0);
  const deadline = Date.now() + 120_000;
  for (const id of ids) {
    for (;;) {
      const res = await fetch(`${world.serverUrl}/api/v1/renders/${id}`, {
        headers: { authorization: `Bearer ${world.secrets.apiToken}` },
      });
      const state = (await res.json()) as { status?: string };
      if (state.status === 'completed' || state.status === 'failed') break;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${state.status ?? '?'}`);
      await sleep(200);
    }
  }
}

/**
 * The stored result of `head` once `ready` holds for it (the result is stored after the
 * check and the comment are written).
 */
async function storedResult(
  world: ServiceWorld,
  head: string,
  ready: (result: AnalysisResult) => boolean = () => true,
): Promise<AnalysisResult> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await fetch(`${world.serverUrl}/api/v1/repos/${OWNER}/${REPO}/pulls/${PULL}`, {
      headers: { authorization: `Bearer ${world.secrets.apiToken}` },
    });
    if (res.status === 200 && res.headers.get('x-fluxlens-head-sha') === head) {
      const result = (await res.json()) as AnalysisResult;
      if (ready(result)) return result;
    }
    if (Date.now() > deadline) throw new Error(`no stored result of ${head} as expected`);
    await sleep(200);
  }
}

/** The service inline, or (`redis`) a server and a worker process on a real Redis. */
async function startWorld(policy: string | undefined, redis = false): Promise<ServiceWorld> {
  const world = await startServiceWorld(fleetWith(policy), { redis, heads: 2 });
  world.emulator.seedCollaborator({ owner: OWNER, repo: REPO, login: WRITER, permission: 'write' });
  world.emulator.seedCollaborator({ owner: OWNER, repo: REPO, login: READER, permission: 'read' });
  await world.start('serve');
  if (redis) await world.start('worker');
  return world;
}

/** Opens the PR at head 0 and waits for its failing check. */
async function failingHead(world: ServiceWorld): Promise<string> {
  const head = world.pushHead(0);
  expect((await world.deliver('pull_request', pullRequestPayload('opened', head))).status).toBe(
    202,
  );
  await completedAs(world, head, 'failure');
  await storedResult(world, head);
  return head;
}

describe.each([
  ['inline', false],
  ['with Redis, server and worker as separate processes', true],
])('acknowledging a danger from the check run (%s)', (_mode, redis) => {
  let world: ServiceWorld;
  let head: string;

  beforeAll(async () => {
    world = await startWorld(undefined, redis);
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  it('offers "Acknowledge findings" on a failing check', async () => {
    head = await failingHead(world);
    expect(shown(world, head)?.actions).toEqual([
      expect.objectContaining({ label: 'Acknowledge findings', identifier: 'acknowledge' }),
    ]);
  }, 180_000);

  it('refuses a press with a bad signature, and queues nothing', async () => {
    const before = world.emulator.requests().length;
    const forged = await world.deliver('check_run', pressed(world, head, WRITER), {
      signature: 'sha256=00',
    });
    expect(forged.status).toBe(401);
    await sleep(1000);
    expect(world.emulator.requests().slice(before)).toEqual([]);
  });

  it('changes nothing when someone without write access presses it', async () => {
    const before = shown(world, head);
    const commentBefore = comment(world);
    const response = await world.deliver('check_run', pressed(world, head, READER));
    expect(response.status).toBe(202);
    await settled(world, response);
    const permission = world.emulator.requests(
      'GET',
      `/repos/${OWNER}/${REPO}/collaborators/${READER}/permission`,
    );
    expect(permission).toHaveLength(1);
    expect(shown(world, head)).toEqual(before);
    expect(shown(world, head)?.conclusion).toBe('failure');
    expect(comment(world)).toEqual(commentBefore);
  }, 180_000);

  it('turns the check neutral for a writer, naming who and which findings in the check and the comment', async () => {
    const response = await world.deliver('check_run', pressed(world, head, WRITER));
    expect(response.status).toBe(202);
    const run = await completedAs(world, head, 'neutral');
    const result = await storedResult(world, head, (r) => r.acknowledgement !== undefined);
    const dangers = result.findings.filter((f) => f.level === 'danger');
    expect(dangers.length).toBeGreaterThan(0);
    const ids = dangers.map((f) => findingId(f)).sort();
    expect(result.acknowledgement).toMatchObject({ by: WRITER, findings: ids });
    expect(run.output.summary).toContain(`**Acknowledged** by @${WRITER}`);
    for (const id of ids) expect(run.output.summary).toContain(id);
    expect(run.actions).toEqual([]);
    await eventually(
      () => (comment(world)?.body.includes(`by @${WRITER}`) === true ? true : undefined),
      'the comment names the acknowledgement',
    );
    for (const id of ids) expect(comment(world)?.body).toContain(id);
  }, 180_000);

  it('asks again on a new head with the same findings', async () => {
    const next = world.pushHead(1);
    await world.deliver('pull_request', pullRequestPayload('synchronize', next));
    const run = await completedAs(world, next, 'failure');
    expect(run.output.summary).not.toContain('Acknowledged');
    expect(run.actions.map((a) => a.identifier)).toEqual(['acknowledge']);
    expect((await storedResult(world, next)).acknowledgement).toBeUndefined();
  }, 180_000);
});

describe('acknowledging with `acknowledgements: carry` in the policy', () => {
  let world: ServiceWorld;

  beforeAll(async () => {
    world = await startWorld('acknowledgements: carry\n');
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  it('keeps the next head of the PR neutral while its failing findings were acknowledged', async () => {
    const head = await failingHead(world);
    await world.deliver('check_run', pressed(world, head, WRITER));
    await completedAs(world, head, 'neutral');
    await storedResult(world, head, (r) => r.acknowledgement !== undefined);
    const next = world.pushHead(1);
    await world.deliver('pull_request', pullRequestPayload('synchronize', next));
    const run = await completedAs(world, next, 'neutral');
    expect(run.output.summary).toContain(`by @${WRITER}`);
    expect(run.output.summary).toContain('carried over');
    expect((await storedResult(world, next)).acknowledgement).toMatchObject({
      by: WRITER,
      carriedFrom: head,
    });
  }, 300_000);
});
