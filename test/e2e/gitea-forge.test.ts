/**
 * fluxlens serve in front of a real Gitea (Forgejo's stand-in: their v1 API and webhooks are
 * one), with no GitHub configured at all. Gitea itself delivers the signed webhooks; the
 * repository is the bundled example, pushed with git; the PR is opened, commented on and
 * read back through Gitea's API. The analysis the service stores is the CLI's for the same
 * PR. Skipped without the gitea tool locally, required under CI.
 */
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgeVersion } from '../../src/forges/index.js';
import { COMMENT_MARKER } from '../../src/review/index.js';
import { runCli } from '../support/cli.js';
import {
  giteaVersion,
  locateGitea,
  startGitea,
  type Gitea,
  type GiteaUser,
} from '../support/gitea.js';
import { projectRoot } from '../support/paths.js';
import { freePort, sleep, startFluxlensProcess, type ServiceProcess } from '../support/service.js';

const found = locateGitea();
const REPO = 'home-cluster';
const BASE = 'main';
const HEAD = 'podinfo-public';
const REVIEW_TIMEOUT_MS = 240_000;

interface Status {
  id: number;
  context: string;
  status: string;
  target_url: string;
  description: string;
}
interface Comment {
  id: number;
  body: string;
  user: { login: string };
}

/** Polls `probe` until it returns something, or fails naming `what`. */
async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + REVIEW_TIMEOUT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Sam Base',
      GIT_AUTHOR_EMAIL: 'sam@example.org',
      GIT_COMMITTER_NAME: 'Sam Base',
      GIT_COMMITTER_EMAIL: 'sam@example.org',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** The example repository as scripts/example builds it: main, and the PR's branch on top. */
function exampleRepository(dir: string): void {
  cpSync(join(projectRoot, 'examples/home-cluster'), dir, { recursive: true });
  git(dir, 'init', '--quiet', `--initial-branch=${BASE}`);
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '--message', 'home cluster: podinfo, redis, whoami, ingress-nginx');
  git(dir, 'checkout', '--quiet', '-b', HEAD);
  git(dir, 'am', '--quiet', join(projectRoot, 'examples/home-cluster-pr.patch'));
}

function push(dir: string, gitea: Gitea, user: GiteaUser, ...refs: string[]): void {
  const basic = Buffer.from(`${user.login}:${user.password}`).toString('base64');
  const remote = `${gitea.url}/${user.login}/${REPO}.git`;
  git(
    dir,
    '-c',
    `http.extraHeader=Authorization: Basic ${basic}`,
    'push',
    '--quiet',
    remote,
    ...refs,
  );
}

describe.skipIf(!('binary' in found) && !found.required)(
  `fluxlens serve reviews a pull request on a real Gitea${'missing' in found ? ` (${found.missing})` : ''}`,
  () => {
    let work: string;
    let gitea: Gitea;
    let bot: GiteaUser;
    let reader: GiteaUser;
    let serve: ServiceProcess;
    let serverUrl: string;
    const webhookSecret = randomBytes(32).toString('hex');
    const apiToken = randomBytes(24).toString('hex');
    let repoDir: string;
    let owner: string;
    let pullNumber: number;

    const statusesOf = (sha: string) =>
      gitea.api<Status[]>(gitea.admin, 'GET', `/repos/${owner}/${REPO}/commits/${sha}/statuses`);
    const ourComments = async () =>
      (
        await gitea.api<Comment[]>(
          gitea.admin,
          'GET',
          `/repos/${owner}/${REPO}/issues/${pullNumber}/comments`,
        )
      ).filter((c) => c.body.includes(COMMENT_MARKER));
    const finalStatus = (sha: string) =>
      until(
        async () => {
          const ours = (await statusesOf(sha)).filter((s) => s.context === 'fluxlens');
          // The newest by id: Gitea orders by creation time in seconds, and a review that
          // finishes within the second it started leaves its pending and final statuses tied.
          const latest = ours.sort((a, b) => b.id - a.id)[0];
          return latest !== undefined && latest.status !== 'pending' ? latest : undefined;
        },
        `the final fluxlens status on ${sha.slice(0, 12)}`,
      );

    beforeAll(async () => {
      if (!('binary' in found)) throw new Error(found.missing);
      work = mkdtempSync(join(tmpdir(), 'fluxlens-gitea-e2e-'));
      gitea = await startGitea(found.binary, join(work, 'gitea'));
      owner = gitea.admin.login;
      bot = await gitea.createUser('fluxlens', ['write:repository', 'write:issue', 'read:user']);
      reader = await gitea.createUser('passer-by', ['write:issue', 'read:repository']);
      await gitea.api(gitea.admin, 'POST', '/user/repos', {
        name: REPO,
        default_branch: BASE,
        private: false,
      });
      // Admin on the repository: Gitea tells only repository admins another user's permission.
      await gitea.api(gitea.admin, 'PUT', `/repos/${owner}/${REPO}/collaborators/${bot.login}`, {
        permission: 'admin',
      });

      const port = await freePort();
      serverUrl = `http://127.0.0.1:${port}`;
      serve = await startFluxlensProcess('serve', {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? work,
        ...(process.env['FLUXLENS_TOOLS_DIR']
          ? { FLUXLENS_TOOLS_DIR: process.env['FLUXLENS_TOOLS_DIR'] }
          : {}),
        FLUXLENS_HOST: '127.0.0.1',
        FLUXLENS_PORT: String(port),
        FLUXLENS_WEBHOOK_SECRET: webhookSecret,
        FLUXLENS_GITEA_URL: gitea.url,
        FLUXLENS_GITEA_TOKEN: bot.token,
        FLUXLENS_PUBLIC_URL: serverUrl,
        FLUXLENS_API_TOKEN: apiToken,
        FLUXLENS_CACHE_DIR: join(work, 'cache'),
        // The example's charts are remote: offline, they are render errors, the CLI's too.
        FLUXLENS_OFFLINE: 'true',
      });
      await until(
        () =>
          fetch(`${serverUrl}/healthz`).then(
            (r) => (r.ok ? true : undefined),
            () => undefined,
          ),
        'fluxlens serve to listen',
      );
      await gitea.api(gitea.admin, 'POST', `/repos/${owner}/${REPO}/hooks`, {
        type: 'gitea',
        active: true,
        events: ['pull_request', 'issue_comment'],
        config: {
          url: `${serverUrl}/webhooks/gitea`,
          content_type: 'json',
          secret: webhookSecret,
        },
      });

      repoDir = join(work, 'repo');
      exampleRepository(repoDir);
      push(repoDir, gitea, gitea.admin, BASE, HEAD);
      // Gitea records pushed branches from a queue of its own: the PR waits for them.
      await until(
        () =>
          gitea.api(gitea.admin, 'GET', `/repos/${owner}/${REPO}/branches/${HEAD}`).then(
            () => true,
            () => undefined,
          ),
        'the pushed branch',
      );
      const pull = await gitea.api<{ number: number }>(
        gitea.admin,
        'POST',
        `/repos/${owner}/${REPO}/pulls`,
        { base: BASE, head: HEAD, title: 'podinfo: publish on the internet' },
      );
      pullNumber = pull.number;
    }, 300_000);

    afterAll(async () => {
      serve?.kill('SIGTERM');
      await serve?.exited;
      await gitea?.stop();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('writes a commit status linking the report and one sticky comment, as the forge delivers the opened PR', async () => {
      const head = git(repoDir, 'rev-parse', HEAD);
      const status = await finalStatus(head).catch((err: unknown) => {
        throw new Error(`${String(err)}\nfluxlens serve:\n${serve.output()}`);
      });
      expect(status.status).toBe('failure');
      expect(status.target_url).toMatch(
        new RegExp(`^${serverUrl}/reports/gitea/${owner}/${REPO}/pulls/${pullNumber}\\?expires=`),
      );
      // The result the report shows is stored right after the status and the comment.
      const report = await until(async () => {
        const response = await fetch(status.target_url);
        return response.status === 404 ? undefined : response;
      }, 'the report');
      expect(report.status).toBe(200);
      expect(await report.text()).toContain('podinfo');

      const comments = await until(
        async () => ((await ourComments()).length > 0 ? ourComments() : undefined),
        'the sticky comment',
      );
      expect(comments).toHaveLength(1);
      expect(comments[0]?.user.login).toBe(bot.login);
      expect(comments[0]?.body).toContain('ingress');
    });

    it('stores the same analysis the CLI prints for the same pull request', async () => {
      // The result is stored right after the comment is written.
      const stored = await until(async () => {
        const response = await fetch(
          `${serverUrl}/api/v1/forges/gitea/repos/${owner}/${REPO}/pulls/${pullNumber}`,
          { headers: { authorization: `Bearer ${apiToken}` } },
        );
        return response.status === 404 ? undefined : response;
      }, 'the stored result');
      expect(stored.status).toBe(200);
      const service = (await stored.json()) as Record<string, unknown>;
      const cli = await runCli([
        'diff', '--repo', repoDir, '--base', BASE, '--head', HEAD, '--format', 'json', '--offline',
      ]); // prettier-ignore
      const printed = JSON.parse(cli.stdout) as Record<string, unknown>;
      // The service names the revisions as the PR does, and links its report; timings vary.
      const comparable = ({
        timings: _t,
        reportUrl: _r,
        base,
        head,
        ...rest
      }: Record<string, unknown>) => ({
        ...rest,
        base: (base as { sha: string }).sha,
        head: (head as { sha: string }).sha,
      });
      expect(comparable(service)).toEqual(comparable(printed));
      expect(service['base']).toMatchObject({ rev: BASE });
      expect(service['head']).toMatchObject({ rev: `#${pullNumber}` });
    });

    it('edits the same comment when the pull request is pushed again', async () => {
      const [before] = await ourComments();
      const file = join(repoDir, 'apps/base/podinfo/redis.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('2Gi', '3Gi'));
      git(repoDir, 'commit', '--quiet', '--all', '--message', 'podinfo-redis: 3Gi');
      push(repoDir, gitea, gitea.admin, HEAD);
      const head = git(repoDir, 'rev-parse', HEAD);
      await finalStatus(head);
      const after = await until(async () => {
        const comments = await ourComments();
        return comments.length === 1 && comments[0]?.body !== before?.body ? comments : undefined;
      }, 'the sticky comment edited');
      expect(after[0]?.id).toBe(before?.id);
    });

    it('acknowledges the render command of a user with write access, and not of a passer-by', async () => {
      const command = async (user: GiteaUser) =>
        gitea.api<{ id: number }>(
          user,
          'POST',
          `/repos/${owner}/${REPO}/issues/${pullNumber}/comments`,
          {
            body: '/fluxlens render',
          },
        );
      // Gitea answers null for a comment without reactions.
      const reactionsOf = async (id: number) =>
        (await gitea.api<Array<{ content: string; user: { login: string } }> | null>(
          gitea.admin,
          'GET',
          `/repos/${owner}/${REPO}/issues/comments/${id}/reactions`,
        )) ?? [];
      const strangers = await command(reader);
      const owners = await command(gitea.admin);
      const reactions = await until(async () => {
        const found = await reactionsOf(owners.id);
        return found.length > 0 ? found : undefined;
      }, "the reaction to the owner's command");
      expect(reactions).toEqual([
        expect.objectContaining({
          content: 'eyes',
          user: expect.objectContaining({ login: bot.login }),
        }),
      ]);
      // The passer-by's command was delivered before the owner's: had it counted, it would show.
      expect(await reactionsOf(strangers.id)).toEqual([]);
    });

    it('refuses a delivery with a bad signature and enqueues nothing', async () => {
      const body = JSON.stringify({ action: 'opened' });
      const wrong = createHmac('sha256', 'not-the-secret').update(body).digest('hex');
      const response = await fetch(`${serverUrl}/webhooks/gitea`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-gitea-event': 'pull_request',
          'x-gitea-delivery': '6a1e5c1e-0000-4000-8000-000000000001',
          'x-gitea-signature': wrong,
        },
        body,
      });
      expect(response.status).toBe(401);
      const metrics = await (await fetch(`${serverUrl}/metrics`)).text();
      expect(metrics).toContain('fluxlens_http_rejections_total{reason="bad-signature"} 1');
      expect(metrics).toMatch(
        /fluxlens_webhook_deliveries_total\{event="pull_request",outcome="enqueued",forge="gitea"\} [1-9]/,
      );
      // The reviews' own metrics name the forge too.
      expect(metrics).toMatch(
        /fluxlens_review_stage_duration_seconds_count\{stage="total",forge="gitea"\} [1-9]/,
      );
    });

    it(`tells Gitea ${'binary' in found ? giteaVersion(found.binary) : ''} from Forgejo by its version`, async () => {
      const { version } = await gitea.api<{ version: string }>(gitea.admin, 'GET', '/version');
      expect(forgeVersion(version)).toEqual({ flavor: 'gitea', version });
    });
  },
);
