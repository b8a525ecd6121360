/**
 * `fluxlens action`, the step of action.yml, as a GitHub Actions run starts it: a recorded
 * `pull_request` payload pointed at a real git repository, the runner's files and variables,
 * and the real GitHub client writing the sticky comment to the GitHub emulator.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubClient } from '../../src/github/index.js';
import { COMMENT_MARKER } from '../../src/review/index.js';
import { runCli } from '../support/cli.js';
import {
  APP_TOKEN,
  TOKEN_APP,
  testAppKey,
  USER_TOKEN,
  useFixtures,
  type Fixture,
} from '../support/github-fixture.js';
import {
  actionStep,
  stepOutputs,
  writePullRequestEvent,
  type ActionStep,
} from '../support/actions-runner.js';
import { startGitHubEmulator } from '../support/github-emulator.js';
import { projectRoot } from '../support/paths.js';
import { bootstrap, makeRepo, yamlStream, type TestRepo } from '../support/repo.js';
import { appClaim, appConfigMap } from '../support/app-objects.js';

const PULL = 7;

let fleet: TestRepo;
let scratch: string;
const sha: Record<'main' | 'dropClaim' | 'tweak', string> = { main: '', dropClaim: '', tweak: '' };

function git(...args: string[]): void {
  execFileSync('git', ['-C', fleet.dir, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: fleet.dir, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: 'ignore',
  });
}

/**
 * main: a ConfigMap and a PersistentVolumeClaim. `drop-claim` deletes the claim (a danger
 * finding); `tweak`, a later push to the same PR, only recolours the ConfigMap.
 */
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'fluxlens-action-'));
  fleet = makeRepo(
    {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/config.yaml': yamlStream(appConfigMap('red')),
      'clusters/prod/data.yaml': yamlStream(appClaim),
    },
    { git: true },
  );
  sha.main = fleet.commit('base');
  git('checkout', '-q', '-b', 'drop-claim');
  rmSync(join(fleet.dir, 'clusters/prod/data.yaml'));
  sha.dropClaim = fleet.commit('drop the claim');
  git('checkout', '-q', '-b', 'tweak', 'main');
  fleet.write({ 'clusters/prod/config.yaml': yamlStream(appConfigMap('blue')) });
  sha.tweak = fleet.commit('recolour');
  git('checkout', '-q', 'main');
});

afterAll(() => {
  fleet.remove();
  rmSync(scratch, { recursive: true, force: true });
});

/** The recorded payload of a push to pull request 7, from acme/gitops or a fork of it. */
function eventFile(head: string, options: { fork?: boolean } = {}): string {
  return writePullRequestEvent(scratch, {
    repository: 'acme/gitops',
    number: PULL,
    baseSha: sha.main,
    headSha: head,
    ...(options.fork ? { headRepository: 'someone/gitops' } : {}),
  });
}

/** The variables a runner sets for the step, and the inputs action.yml maps to INPUT_*. */
function runnerFor(
  fixture: Fixture,
  event: string,
  inputs: Record<string, string> = {},
): ActionStep {
  return actionStep(scratch, {
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: 'acme/gitops',
    GITHUB_WORKSPACE: fleet.dir,
    GITHUB_API_URL: fixture.emulator.apiUrl,
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_RUN_ID: '4242',
    INPUT_TOKEN: USER_TOKEN,
    INPUT_WORKING_DIRECTORY: '',
    INPUT_PATHS: '',
    INPUT_FAIL_ON: '',
    INPUT_ENGINE: 'builtin',
    INPUT_COMMENT: 'true',
    ...inputs,
  });
}

const action = (run: ActionStep) => runCli(['action'], { env: run.env });
const comments = (fixture: Fixture) => fixture.emulator.state().comments;
const fixtures = useFixtures();

describe('fluxlens action on a pull_request event', () => {
  it('puts the report in the job summary and the sticky comment, and fails at failOn', async () => {
    const github = await fixtures.token();
    github.emulator.expect('GET', '/user');
    github.emulator.expect('GET', `/repos/acme/gitops/issues/${PULL}/comments`);
    github.emulator.expect('POST', `/repos/acme/gitops/issues/${PULL}/comments`);
    const run = runnerFor(github, eventFile(sha.dropClaim));

    const result = await action(run);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`comparing head ${sha.dropClaim.slice(0, 12)}`);
    expect(result.stdout).toContain('verdict danger');
    const summary = readFileSync(run.summary, 'utf8');
    expect(summary).toMatch(
      /^### fluxlens: \*\*DANGER\*\* · Deletes PersistentVolumeClaim apps\/app-data/,
    );
    expect(summary).toContain('app-data');
    const [comment, ...others] = comments(github);
    expect(others).toEqual([]);
    expect(comment?.author).toBe('ci-bot');
    expect(comment?.body.startsWith(`${COMMENT_MARKER}\n### fluxlens`)).toBe(true);
    expect(comment?.body).toContain('app-data');
    // The comment points at the run, whose summary has room for what a comment cannot hold.
    expect(comment?.body).toContain('https://github.example/acme/gitops/actions/runs/4242');
  });

  it('writes the verdict, the counts and the report files as step outputs', async () => {
    const github = await fixtures.token();
    const run = runnerFor(github, eventFile(sha.dropClaim), { INPUT_COMMENT: 'false' });

    expect((await action(run)).code).toBe(1);

    const outputs = stepOutputs(run);
    expect(outputs).toMatchObject({
      verdict: 'danger',
      failed: 'true',
      removed: '1',
      added: '0',
      danger: '1',
      unassessed: '0',
    });
    const json = JSON.parse(readFileSync(outputs['report-json'] ?? '', 'utf8')) as {
      head: { sha: string };
    };
    expect(json.head.sha).toBe(sha.dropClaim);
    expect(readFileSync(outputs['report-markdown'] ?? '', 'utf8')).toContain('app-data');
  });

  it('reviews a checkout in a folder of the workspace (working-directory)', async () => {
    const github = await fixtures.token();
    const run = runnerFor(github, eventFile(sha.dropClaim), {
      GITHUB_WORKSPACE: dirname(fleet.dir),
      INPUT_WORKING_DIRECTORY: basename(fleet.dir),
      INPUT_COMMENT: 'false',
    });

    expect((await action(run)).code).toBe(1);
    expect(readFileSync(run.summary, 'utf8')).toContain('app-data');
  });

  it('updates its one sticky comment on the next push instead of adding another', async () => {
    const github = await fixtures.token();
    github.emulator.allow('GET', '/user');
    github.emulator.expect('GET', `/repos/acme/gitops/issues/${PULL}/comments`, 2);
    github.emulator.expect('POST', `/repos/acme/gitops/issues/${PULL}/comments`, 1);
    github.emulator.expect('PATCH', '/repos/acme/gitops/issues/comments/:id', 1);

    expect((await action(runnerFor(github, eventFile(sha.dropClaim)))).code).toBe(1);
    expect((await action(runnerFor(github, eventFile(sha.tweak)))).code).toBe(0);

    const [comment, ...others] = comments(github);
    expect(others).toEqual([]);
    expect(comment?.body).toContain('app-config');
    expect(comment?.body).not.toContain('app-data');
  });

  it('passes with fail-on never even when a finding is danger', async () => {
    const github = await fixtures.token();
    const run = runnerFor(github, eventFile(sha.dropClaim), {
      INPUT_FAIL_ON: 'never',
      INPUT_COMMENT: 'false',
    });

    const result = await action(run);

    expect(result.code).toBe(0);
    expect(stepOutputs(run)).toMatchObject({ verdict: 'danger', failed: 'false' });
    expect(github.emulator.requests()).toEqual([]);
  });

  it("keeps the summary and only warns when a fork's read-only token cannot comment", async () => {
    const github = await fixtures.token();
    github.emulator.expect('GET', '/user');
    github.emulator.expect('GET', `/repos/acme/gitops/issues/${PULL}/comments`);
    github.emulator.fail('POST', `/repos/acme/gitops/issues/${PULL}/comments`, {
      status: 403,
      message: 'Resource not accessible by integration',
    });
    const run = runnerFor(github, eventFile(sha.dropClaim, { fork: true }));

    const result = await action(run);

    // The exit code is the gate's alone: 1 for the danger finding, not 2 for the comment.
    expect(result.code).toBe(1);
    const warnings = result.stdout.split('\n').filter((l) => l.startsWith('::warning::'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('answered 403: Resource not accessible by integration');
    expect(warnings[0]).toContain('a pull request from a fork gets a read-only GITHUB_TOKEN');
    expect(warnings[0]).not.toContain(USER_TOKEN);
    expect(readFileSync(run.summary, 'utf8')).toContain('app-data');
    expect(stepOutputs(run)).toMatchObject({ failed: 'true' });
    expect(comments(github)).toEqual([]);
  });

  it("upserts the comment with the workflow's own token, which cannot look itself up", async () => {
    // GitHub Actions is an App: its GITHUB_TOKEN is an installation token of github-actions.
    const key = testAppKey();
    const emulator = await startGitHubEmulator({
      app: { id: 15368, slug: 'github-actions', publicKey: key.publicKey },
    });
    try {
      emulator.seedInstallation({ id: 5, repositories: ['acme/gitops'] });
      emulator.allow('*', '**');
      const app = createGitHubClient({
        apiUrl: emulator.apiUrl,
        auth: { kind: 'app', appId: '15368', privateKey: key.privateKey },
      });
      const token = await app.installationToken(5);
      for (const head of [sha.dropClaim, sha.tweak]) {
        const run = runnerFor({ emulator } as Fixture, eventFile(head), {
          INPUT_TOKEN: token,
          FLUXLENS_WORKFLOW_TOKEN: 'true',
        });
        expect((await action(run)).stdout).not.toContain('::warning::');
      }
      const [comment, ...others] = emulator.state().comments;
      expect(others).toEqual([]);
      expect(comment?.author).toBe('github-actions[bot]');
      expect(emulator.requests('GET', '/user')).toEqual([]);
      emulator.assertNoUnexpected();
    } finally {
      await emulator.close();
    }
  });

  it.each([
    [
      'another event',
      { GITHUB_EVENT_NAME: 'push' },
      'run it on pull_request or pull_request_target, not push',
    ],
    [
      'a fail-on level it does not know',
      { INPUT_FAIL_ON: 'sometimes' },
      'INPUT_FAIL_ON: must be info, caution, danger or never',
    ],
  ])(
    'refuses %s with exit 2, says why, and tells later steps through its outputs',
    async (_case, inputs, message) => {
      const github = await fixtures.token();
      const run = runnerFor(github, eventFile(sha.tweak), inputs);

      const result = await action(run);

      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
      expect(readFileSync(run.summary, 'utf8')).toBe('');
      // The README's `if: always()` steps read these; the report paths stay empty.
      expect(stepOutputs(run)).toEqual({ verdict: 'error', failed: 'true' });
    },
  );
});

describe('fluxlens action with an App installation token (actions/create-github-app-token)', () => {
  const appRun = (github: Fixture, head: string, inputs: Record<string, string> = {}) =>
    action(runnerFor(github, eventFile(head), { INPUT_TOKEN: APP_TOKEN, ...inputs }));
  const warningsOf = (stdout: string) =>
    stdout.split('\n').filter((l) => l.startsWith('::warning::'));
  const otherApp = { id: 31337, slug: 'other-app' };

  it("creates its comment, then updates that one, though GitHub will not say who the token is, and leaves a person's quote of the marker alone", async () => {
    const github = await fixtures.installationToken();
    const quote = `> ${COMMENT_MARKER}\n> why does the bot say danger?`;
    const human = github.emulator.seedComment({
      owner: 'acme',
      repo: 'gitops',
      issueNumber: PULL,
      body: quote,
      author: 'alice',
    });
    github.emulator.expect('GET', '/user', 2);
    github.emulator.expect('GET', `/repos/acme/gitops/issues/${PULL}/comments`, 2);
    github.emulator.expect('POST', `/repos/acme/gitops/issues/${PULL}/comments`, 1);
    github.emulator.expect('PATCH', '/repos/acme/gitops/issues/comments/:id', 1);

    const first = await appRun(github, sha.dropClaim);
    const second = await appRun(github, sha.tweak);

    expect([first.code, second.code]).toEqual([1, 0]);
    // GitHub's 403 on GET /user says who the token is not, not what it may do: no warning.
    expect(warningsOf(first.stdout + second.stdout)).toEqual([]);
    expect(github.emulator.requests('GET', '/user').map((r) => r.status)).toEqual([403, 403]);
    const [kept, ours, ...others] = comments(github);
    expect(others).toEqual([]);
    expect(kept).toMatchObject({ id: human, author: 'alice', body: quote });
    expect(ours?.author).toBe(`${TOKEN_APP.slug}[bot]`);
    expect(ours?.body).toContain('app-config');
    expect(ours?.body).not.toContain('app-data');
  });

  it("writes nothing and names the comment-author input when another App's comment carries the marker too", async () => {
    const github = await fixtures.installationToken();
    const seed = (author: string, viaApp: { id: number; slug: string }) =>
      github.emulator.seedComment({
        owner: 'acme',
        repo: 'gitops',
        issueNumber: PULL,
        body: `${COMMENT_MARKER}\nan earlier report`,
        author,
        authorType: 'Bot',
        viaApp,
      });
    const theirs = seed(`${otherApp.slug}[bot]`, otherApp);
    const ours = seed(`${TOKEN_APP.slug}[bot]`, TOKEN_APP);
    github.emulator.expect('GET', '/user', 1);
    github.emulator.expect('GET', `/repos/acme/gitops/issues/${PULL}/comments`, 2);
    github.emulator.expect('PATCH', `/repos/acme/gitops/issues/comments/${ours}`, 1);

    const unsure = await appRun(github, sha.dropClaim);
    const told = await appRun(github, sha.dropClaim, {
      INPUT_COMMENT_AUTHOR: `${TOKEN_APP.slug}[bot]`,
    });

    expect([unsure.code, told.code]).toEqual([1, 1]);
    const [warning, ...more] = warningsOf(unsure.stdout);
    expect(more).toEqual([]);
    expect(warning).toContain('other-app[bot], review-bot[bot]');
    expect(warning).toContain('set the comment-author input');
    expect(warningsOf(told.stdout)).toEqual([]);
    const byId = new Map(comments(github).map((c) => [c.id, c.body]));
    expect(byId.get(theirs)).toBe(`${COMMENT_MARKER}\nan earlier report`);
    expect(byId.get(ours)).toContain('app-data');
    expect(byId.size).toBe(2);
  });
});

const execFileAsync = promisify(execFile);

describe('fluxlens action as its own process', () => {
  it('runs as the composite step runs it, with the exit code the job sees', async () => {
    const github = await fixtures.token();
    github.emulator.expect('GET', '/user');
    github.emulator.expect('GET', `/repos/acme/gitops/issues/${PULL}/comments`);
    github.emulator.expect('POST', `/repos/acme/gitops/issues/${PULL}/comments`);
    const run = runnerFor(github, eventFile(sha.dropClaim));
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? scratch,
      FLUXLENS_CACHE_DIR: join(scratch, 'cache'),
      ...(process.env['FLUXLENS_TOOLS_DIR']
        ? { FLUXLENS_TOOLS_DIR: process.env['FLUXLENS_TOOLS_DIR'] }
        : {}),
      ...run.env,
    };
    // Asynchronous: the emulator answers from this process while the child runs.
    const entry = join(projectRoot, 'test/support/fluxlens-process.ts');
    const exit = await execFileAsync(process.execPath, ['--import', 'tsx', entry, 'action'], {
      cwd: projectRoot,
      env,
    }).then(
      () => 0,
      (err: { code?: unknown }) => err.code,
    );

    expect(exit).toBe(1);
    expect(readFileSync(run.summary, 'utf8')).toContain('app-data');
    expect(stepOutputs(run)).toMatchObject({ verdict: 'danger', failed: 'true' });
    expect(comments(github)).toHaveLength(1);
  });
});
