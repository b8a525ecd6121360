/**
 * The MCP endpoint of a running `fluxlens serve`, as an MCP client sees it: the SDK's own
 * client over Streamable HTTP, against the GitHub emulator and the bundled example
 * repository (its pull request reviewed once through a signed webhook), reviewing in serve's
 * own process or in a worker on Redis. A branch reviewed
 * through the endpoint gives the analysis `fluxlens diff` prints for the same base and head.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExampleRepository, EXAMPLE } from '../../scripts/pictures/example-review.js';
import { RULES } from '../../src/risk/index.js';
import { runCli } from '../support/cli.js';
import {
  type Cleanup,
  type ExampleWorld,
  reviewExample,
  runCleanup,
  startExampleWorld,
} from '../support/example-service.js';
import { startRedis } from '../support/redis.js';
import { sleep } from '../support/service.js';

const REVIEW_TIMEOUT_MS = 180_000;

interface ToolText {
  isError: boolean;
  text: string;
}

describe.each([
  ['an inline queue', false],
  ['Redis and a fluxlens worker', true],
])('the MCP endpoint of fluxlens serve on %s', (_queue, onRedis) => {
  const cleanup: Cleanup = [];
  const apiToken = randomBytes(24).toString('hex');
  let work: string;
  let repoDir: string;
  let world: ExampleWorld;
  let client: Client;

  const connect = async (token: string | undefined): Promise<Client> => {
    const headers: Record<string, string> =
      token === undefined ? {} : { authorization: `Bearer ${token}` };
    const transport = new StreamableHTTPClientTransport(new URL(`${world.serverUrl}/mcp`), {
      requestInit: { headers },
    });
    const connected = new Client({ name: 'fluxlens-e2e', version: '1.0.0' });
    await connected.connect(transport);
    cleanup.push(() => connected.close());
    return connected;
  };

  const call = async (name: string, args: Record<string, unknown>): Promise<ToolText> => {
    const result = await client.callTool({ name, arguments: args });
    const content = result.content as Array<{ type: string; text?: string }>;
    return {
      isError: result.isError === true,
      text: content.map((part) => part.text ?? '').join(''),
    };
  };

  /** Polls review_status until the job has ended; the last answer. */
  const poll = async (job: string, format: 'json' | 'markdown' = 'json'): Promise<ToolText> => {
    const deadline = Date.now() + REVIEW_TIMEOUT_MS;
    for (;;) {
      const polled = await call('review_status', { job, format });
      const waiting = /"status": "(waiting|active)"/.test(polled.text);
      if (!waiting || polled.isError) return polled;
      if (Date.now() > deadline) throw new Error(`job ${job} did not finish`);
      await sleep(250);
    }
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'fluxlens-mcp-e2e-'));
    cleanup.push(() => rmSync(work, { recursive: true, force: true }));
    repoDir = buildExampleRepository(join(work, 'repo'));
    const redis = onRedis ? await startRedis() : undefined;
    if (redis) cleanup.push(() => redis.stop());
    world = await startExampleWorld(
      {
        repoDir,
        base: EXAMPLE.base,
        head: EXAMPLE.head,
        env: { FLUXLENS_API_TOKEN: apiToken },
        ...(redis ? { redisUrl: redis.url } : {}),
      },
      join(work, 'service'),
      cleanup,
    );
    await reviewExample(world);
    client = await connect(apiToken);
  }, 300_000);

  afterAll(async () => {
    await runCleanup(cleanup);
  }, 60_000);

  it('lists its tools and the rules reference to an MCP client', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'explain_finding',
      'get_review',
      'list_reviews',
      'render_entry',
      'review_branch',
      'review_status',
    ]);
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['fluxlens://rules']);
    const rules = await client.readResource({ uri: 'fluxlens://rules' });
    const text = (rules.contents[0] as { text: string }).text;
    for (const rule of RULES) expect(text).toContain(`| \`${rule.id}\` | ${rule.level} |`);
  });

  it('refuses a client without the API token or with a wrong one (401)', async () => {
    await expect(connect(undefined)).rejects.toMatchObject({ code: 401 });
    await expect(connect(`${apiToken}x`)).rejects.toMatchObject({ code: 401 });
    const bare = await fetch(`${world.serverUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('reviews a branch without a pull request and gives the analysis fluxlens diff prints', async () => {
    const asked = await call('review_branch', {
      owner: world.target.owner,
      repo: world.target.repo,
      base: EXAMPLE.base,
      head: EXAMPLE.head,
    });
    expect(asked.isError, asked.text).toBe(false);
    const { job } = JSON.parse(asked.text) as { job: string };
    const deadline = Date.now() + REVIEW_TIMEOUT_MS;
    let state: { status: string; result?: { timings?: unknown } };
    for (;;) {
      const polled = await call('review_status', { job });
      expect(polled.isError, polled.text).toBe(false);
      state = JSON.parse(polled.text) as typeof state;
      if (!['waiting', 'active'].includes(state.status)) break;
      if (Date.now() > deadline) throw new Error('the branch review did not finish');
      await sleep(250);
    }
    expect(state.status).toBe('completed');

    const cli = await runCli([
      'diff',
      ...['--repo', repoDir, '--base', EXAMPLE.base, '--head', EXAMPLE.head],
      ...['--offline', '--format', 'json'],
    ]);
    expect([0, 1], cli.stderr).toContain(cli.code);
    const printed = JSON.parse(cli.stdout) as { timings?: unknown };
    expect(withoutTimings(state.result)).toEqual(withoutTimings(printed));
    expect(JSON.stringify(state.result)).toContain('podinfo-redis');

    const markdown = await call('review_status', { job, format: 'markdown' });
    expect(markdown.text).toContain('### fluxlens: **DANGER**');
  });

  it('renders one entry at one revision as fluxlens render prints it, with what did not render first', async () => {
    const { owner, repo } = world.target;
    const path = 'clusters/home';
    const asked = await call('render_entry', { owner, repo, rev: EXAMPLE.head, path });
    expect(asked.isError, asked.text).toBe(false);
    const { job } = JSON.parse(asked.text) as { job: string };
    const done = await poll(job);
    expect(done.isError, done.text).toBe(false);
    const cli = await runCli([
      'render',
      ...['--repo', repoDir, '--rev', EXAMPLE.head, '--path', path, '--offline'],
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(
      done.text.startsWith(`# Job ${job}: ${path} at ${EXAMPLE.head} (${world.headSha})\n`),
    ).toBe(true);
    // The remote chart is not in the offline cache: the render says so before the objects.
    expect(done.text).toMatch(/^# Not rendered \(1\):\n# {3}HelmRelease .*ingress-nginx/m);
    expect(done.text.endsWith(cli.stdout)).toBe(true);
    expect(cli.stdout).toContain('kind: StatefulSet');
  });

  it("serves a pull request's review as the API does, as JSON and as the comment's Markdown", async () => {
    const { owner, repo, pull } = world.target;
    const api = await fetch(`${world.serverUrl}/api/v1/repos/${owner}/${repo}/pulls/${pull}`, {
      headers: { authorization: `Bearer ${apiToken}` },
    });
    expect(api.status).toBe(200);
    const asJson = await call('get_review', { owner, repo, pull });
    expect(asJson.isError, asJson.text).toBe(false);
    expect(asJson.text).toBe(await api.text());
    const asMarkdown = await call('get_review', { owner, repo, pull, format: 'markdown' });
    expect(asMarkdown.text).toContain('### fluxlens: **DANGER**');
    expect(asMarkdown.text).toContain('StatefulSet/podinfo/podinfo-redis');
  });

  it('lists the latest reviews of a repository with their verdicts', async () => {
    const { owner, repo, pull } = world.target;
    const listed = await call('list_reviews', { owner, repo });
    expect(listed.isError, listed.text).toBe(false);
    const { reviews } = JSON.parse(listed.text) as {
      reviews: Array<{ pull: number; headSha: string; verdict: string }>;
    };
    expect(reviews).toEqual([
      expect.objectContaining({ pull, headSha: world.headSha, verdict: 'danger' }),
    ]);
  });

  it("explains a finding with its rule, why the rule exists and the object's diff", async () => {
    const { owner, repo, pull } = world.target;
    const stored = JSON.parse((await call('get_review', { owner, repo, pull })).text) as {
      findings: Array<{ rule: string; resource: { kind: string; name: string } }>;
    };
    const number = stored.findings.findIndex((f) => f.rule === 'stateful-data-deleted') + 1;
    expect(number).toBeGreaterThan(0);
    const explained = await call('explain_finding', { owner, repo, pull, finding: number });
    expect(explained.isError, explained.text).toBe(false);
    const rule = RULES.find((r) => r.id === 'stateful-data-deleted');
    expect(explained.text).toContain(`Rule stateful-data-deleted (data-loss, danger by default)`);
    expect(explained.text).toContain(rule?.description ?? 'no such rule');
    expect(explained.text).toMatch(/```diff\n(-.*\n)+/);
    const missing = await call('explain_finding', { owner, repo, pull, finding: 10_000 });
    expect(missing).toEqual({
      isError: true,
      text: `the review has ${stored.findings.length} findings; there is no 10000`,
    });
  });

  it('refuses a repository the GitHub App is not installed on, before anything is queued', async () => {
    const { owner } = world.target;
    const other = { owner, repo: 'not-installed' };
    const asked = await call('review_branch', { ...other, base: 'main', head: 'feature' });
    expect(asked).toEqual({
      isError: true,
      text: `the GitHub App is not installed on ${owner}/not-installed`,
    });
    const listed = await call('list_reviews', other);
    expect(listed.isError).toBe(true);
    // GitHub was asked which installation covers it; its git was never fetched.
    expect(
      world.emulator.requests('GET', `/repos/${owner}/not-installed/installation`).length,
    ).toBeGreaterThan(0);
    expect(world.serve.output()).not.toContain('not-installed.git');
  });
});

/** An analysis without `timings`, the one part that differs from run to run. */
function withoutTimings(result: object | undefined): object {
  return Object.fromEntries(Object.entries(result ?? {}).filter(([key]) => key !== 'timings'));
}
