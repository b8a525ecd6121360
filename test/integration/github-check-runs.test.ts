import { describe, expect, it } from 'vitest';
import { classify } from '../../src/errors.js';
import { GitHubError } from '../../src/github/index.js';
import type { CheckRunAnnotation } from '../../src/model/index.js';
import {
  HEAD_SHA,
  INSTALLATION_ID,
  REPO,
  type Fixture,
  useFixtures,
} from '../support/github-fixture.js';
import { ACKNOWLEDGE_ACTION, CHECK_RUN_NAME as NAME } from '../../src/review/index.js';

const fixtures = useFixtures();

const RUNS = '/repos/acme/gitops/check-runs';
const RUN = '/repos/acme/gitops/check-runs/:id';
const LIST = `/repos/acme/gitops/commits/${HEAD_SHA}/check-runs`;

async function appFixture(): Promise<Fixture> {
  const fixture = await fixtures.app();
  fixture.emulator.expect('POST', `/app/installations/${INSTALLATION_ID}/access_tokens`);
  return fixture;
}

function annotations(count: number): CheckRunAnnotation[] {
  return Array.from({ length: count }, (_, i) => ({
    path: `clusters/prod/app-${i}.yaml`,
    start_line: i + 1,
    end_line: i + 1,
    annotation_level: 'warning',
    title: `caution image-latest: Deployment/app-${i}`,
    message: 'The image has no pinned tag.',
  }));
}

const completed = {
  ...REPO,
  headSha: HEAD_SHA,
  name: NAME,
  status: 'completed',
  conclusion: 'neutral',
  output: { title: 'Caution: 1 finding', summary: '1 object changed', text: 'diff' },
} as const;

describe('ensureCheckRun', () => {
  it('creates the check run in progress, then completes that same run', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST, 2);
    emulator.expect('POST', RUNS);
    emulator.expect('PATCH', RUN);
    const writer = client.forInstallation(INSTALLATION_ID);

    const started = await writer.ensureCheckRun({
      ...REPO,
      headSha: HEAD_SHA,
      name: NAME,
      status: 'in_progress',
    });
    const done = await writer.ensureCheckRun(completed);

    expect(started.action).toBe('created');
    expect(done).toEqual({ id: started.id, action: 'updated' });
    expect(emulator.state().checkRuns).toMatchObject([
      {
        id: started.id,
        name: 'fluxlens',
        head_sha: HEAD_SHA,
        status: 'completed',
        conclusion: 'neutral',
        output: { title: 'Caution: 1 finding', summary: '1 object changed', text: 'diff' },
      },
    ]);
  });

  it('leaves one run when the same result is published twice', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST, 2);
    emulator.expect('POST', RUNS);
    const writer = client.forInstallation(INSTALLATION_ID);

    const first = await writer.ensureCheckRun({
      ...completed,
      output: { ...completed.output, annotations: annotations(3) },
    });
    const second = await writer.ensureCheckRun({
      ...completed,
      output: { ...completed.output, annotations: annotations(3) },
    });

    expect(second).toEqual({ id: first.id, action: 'unchanged' });
    const runs = emulator.state().checkRuns;
    expect(runs).toHaveLength(1);
    expect(runs[0]?.annotations).toHaveLength(3);
  });

  it('starts a new run when a completed head is rendered again with another result', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST, 2);
    emulator.expect('POST', RUNS, 2);
    const writer = client.forInstallation(INSTALLATION_ID);

    await writer.ensureCheckRun(completed);
    const again = await writer.ensureCheckRun({ ...completed, conclusion: 'success' });

    expect(again.action).toBe('created');
    expect(emulator.state().checkRuns.map((r) => r.conclusion)).toEqual(['neutral', 'success']);
  });

  it('sends 120 annotations in three requests of at most 50, in order', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST);
    emulator.expect('POST', RUNS);
    emulator.expect('PATCH', RUN, 2);
    const all = annotations(120);

    await client
      .forInstallation(INSTALLATION_ID)
      .ensureCheckRun({ ...completed, output: { ...completed.output, annotations: all } });

    const writes = emulator
      .requests()
      .filter((r) => /^\/repos\/[^/]+\/[^/]+\/check-runs/.test(r.path));
    const sizes = writes.map(
      (r) => (r.body as { output: { annotations: unknown[] } }).output.annotations.length,
    );
    expect(writes.map((r) => r.method)).toEqual(['POST', 'PATCH', 'PATCH']);
    expect(sizes).toEqual([50, 50, 20]);
    const [run] = emulator.state().checkRuns;
    expect(run?.annotations.map((a) => a.path)).toEqual(all.map((a) => a.path));
    expect(run).toMatchObject({ status: 'completed', output: completed.output });
  });

  it('updates the run it is given without looking one up', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST);
    emulator.expect('POST', RUNS);
    emulator.expect('PATCH', RUN);
    const writer = client.forInstallation(INSTALLATION_ID);
    const { id } = await writer.ensureCheckRun({
      ...REPO,
      headSha: HEAD_SHA,
      name: NAME,
      status: 'queued',
    });

    const done = await writer.ensureCheckRun({ ...completed, checkRunId: id });

    expect(done).toEqual({ id, action: 'updated' });
    expect(emulator.state().checkRuns).toMatchObject([{ id, status: 'completed' }]);
  });

  it('reports output longer than GitHub allows as a permanent error', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST);
    emulator.expect('POST', RUNS);
    emulator.refuse('POST', RUNS);

    const err = await client
      .forInstallation(INSTALLATION_ID)
      .ensureCheckRun({ ...completed, output: { title: 't', summary: 'x'.repeat(65_536) } })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(GitHubError);
    expect(err).toMatchObject({ status: 422 });
    expect(classify(err)).toBe('usage');
    expect(emulator.state().checkRuns).toEqual([]);
  });
});

describe('ensureStatus', () => {
  it('posts the status under the context it is given, the description clipped to 140 characters', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('POST', `/repos/acme/gitops/statuses/${HEAD_SHA}`);

    await client.forInstallation(INSTALLATION_ID).ensureStatus({
      ...REPO,
      sha: HEAD_SHA,
      state: 'failure',
      description: `Danger: ${'a deleted PersistentVolumeClaim, '.repeat(10)}`,
      targetUrl: 'https://fluxlens.example/reports/1',
      context: 'fluxlens',
    });

    const [status] = emulator.state().statuses;
    expect(status).toMatchObject({
      state: 'failure',
      context: 'fluxlens',
      target_url: 'https://fluxlens.example/reports/1',
    });
    expect(status?.description).toHaveLength(140);
    expect(status?.description?.endsWith('…')).toBe(true);
  });

  it('offers the buttons it is given on a completed run', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST);
    emulator.expect('POST', RUNS);
    await client
      .forInstallation(INSTALLATION_ID)
      .ensureCheckRun({ ...completed, conclusion: 'failure', actions: [ACKNOWLEDGE_ACTION] });
    expect(emulator.state().checkRuns[0]?.actions).toEqual([ACKNOWLEDGE_ACTION]);
  });

  it('has a button GitHub refuses (a label over 20 characters) refused as a permanent error', async () => {
    const { emulator, client } = await appFixture();
    emulator.expect('GET', LIST);
    emulator.expect('POST', RUNS);
    emulator.refuse('POST', RUNS);
    const err = await client
      .forInstallation(INSTALLATION_ID)
      .ensureCheckRun({
        ...completed,
        actions: [{ ...ACKNOWLEDGE_ACTION, label: 'Acknowledge every finding' }],
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422 });
    expect(classify(err)).toBe('usage');
    expect(emulator.state().checkRuns).toEqual([]);
  });
});

describe('mayWrite', () => {
  it('tells someone who may push from someone who may only read', async () => {
    const { emulator, client } = await appFixture();
    emulator.seedCollaborator({ ...REPO, login: 'maintainer', permission: 'admin' });
    emulator.seedCollaborator({ ...REPO, login: 'dev', permission: 'write' });
    emulator.seedCollaborator({ ...REPO, login: 'watcher', permission: 'read' });
    emulator.expect('GET', '/repos/acme/gitops/collaborators/:username/permission', 4);
    const writer = client.forInstallation(INSTALLATION_ID);
    const may = (login: string) => writer.mayWrite?.({ ...REPO, login });
    expect(await Promise.all(['maintainer', 'dev', 'watcher', 'stranger'].map(may))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
