/**
 * A rotation of the webhook secret as a running `fluxlens serve` sees it: the secrets come
 * from mounted files (FLUXLENS_WEBHOOK_SECRET_FILE, FLUXLENS_WEBHOOK_SECRET_PREVIOUS_FILE),
 * GitHub's own ping is signed with each, and once the previous secret is gone only the new
 * one counts. Neither secret ever reaches the process's output.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, signBody } from '../unit/server/support/github-examples.js';
import { startGitHubEmulator, type GitHubEmulator } from '../support/github-emulator.js';
import { freePort, startFluxlensProcess, type ServiceProcess } from '../support/service.js';

const TOKEN = 'ghp_webhookRotationTest0123456789abcdef';
const OLD_SECRET = 'webhook-secret-the-app-had-3f9a1c';
const NEW_SECRET = 'webhook-secret-the-app-gets-7b2e04';

let emulator: GitHubEmulator;
let dir: string;
const started: ServiceProcess[] = [];

beforeAll(async () => {
  emulator = await startGitHubEmulator({ user: { login: 'ci-bot', token: TOKEN } });
  emulator.allow('GET', '/user');
  dir = mkdtempSync(join(tmpdir(), 'fluxlens-rotation-'));
}, 30_000);

afterAll(async () => {
  for (const server of started) {
    server.kill('SIGTERM');
    await server.exited;
  }
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * `fluxlens serve` (inline queue) with these secret files, and `_FILE` variables naming the
 * files of `missing` that are not there (an optional key the Secret lacks); resolves once
 * it answers.
 */
async function serve(
  files: Record<string, string>,
  missing: string[] = [],
): Promise<{ url: string; server: ServiceProcess }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '',
    HOME: dir,
    FLUXLENS_PORT: String(port),
    FLUXLENS_HOST: '127.0.0.1',
    FLUXLENS_GITHUB_TOKEN: TOKEN,
    FLUXLENS_GITHUB_API_URL: emulator.apiUrl,
    FLUXLENS_CACHE_DIR: join(dir, `cache-${port}`),
  };
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, `${name}-${port}`);
    writeFileSync(path, `${content}\n`);
    env[`${name}_FILE`] = path;
  }
  for (const name of missing) env[`${name}_FILE`] = join(dir, 'not-in-the-secret');
  const server = await startFluxlensProcess('serve', env);
  started.push(server);
  return { url: `http://127.0.0.1:${port}`, server };
}

let deliveries = 0;

/** GitHub's ping, signed with `secret`; the status the server answers. */
async function ping(url: string, secret: string): Promise<number> {
  const body = JSON.stringify(example('ping'));
  const res = await fetch(`${url}/webhooks/github`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'ping',
      'x-github-delivery': `rotation-${++deliveries}`,
      'x-hub-signature-256': signBody(secret, body),
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

describe('rotating the webhook secret', () => {
  it('accepts deliveries signed with the new or the previous secret, and no other', async () => {
    const { url, server } = await serve({
      FLUXLENS_WEBHOOK_SECRET: NEW_SECRET,
      FLUXLENS_WEBHOOK_SECRET_PREVIOUS: OLD_SECRET,
    });
    expect(await ping(url, NEW_SECRET)).toBe(200);
    expect(await ping(url, OLD_SECRET)).toBe(200);
    expect(await ping(url, 'a-secret-nobody-configured-0c41')).toBe(401);
    expect(server.output()).toContain(
      'webhook deliveries signed with the previous secret are accepted too',
    );
    expect(server.output()).not.toContain(NEW_SECRET);
    expect(server.output()).not.toContain(OLD_SECRET);
  }, 60_000);

  it('refuses the previous secret once its file is gone from the Secret', async () => {
    const { url, server } = await serve({ FLUXLENS_WEBHOOK_SECRET: NEW_SECRET }, [
      'FLUXLENS_WEBHOOK_SECRET_PREVIOUS',
    ]);
    expect(await ping(url, OLD_SECRET)).toBe(401);
    expect(await ping(url, NEW_SECRET)).toBe(200);
    expect(server.output()).not.toContain('previous secret');
    expect(server.output()).not.toContain(NEW_SECRET);
  }, 60_000);
});
