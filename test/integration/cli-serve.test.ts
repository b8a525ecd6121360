/**
 * `fluxlens serve` and `fluxlens worker` refuse to start on a configuration that cannot
 * work, with one line that names the variable (and never the value of a secret).
 */
import { describe, expect, it } from 'vitest';
import { main as serve } from '../../workers/serve.js';
import { main as worker } from '../../workers/worker.js';

/** The process's exit code and what it printed before it stopped. */
async function start(
  main: typeof serve,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main({
    env,
    stderr: (text) => (stderr += text),
    shutdown: AbortSignal.abort(),
  });
  return { code, stderr };
}

describe('starting the service', () => {
  it('refuses to serve without a webhook secret, naming the variable', async () => {
    const run = await start(serve, { FLUXLENS_GITHUB_TOKEN: 'ghp_notReallyAToken123' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('FLUXLENS_WEBHOOK_SECRET is required');
    expect(run.stderr).not.toContain('ghp_notReallyAToken123');
  });

  it('refuses a GitHub App id without its private key', async () => {
    const run = await start(serve, {
      FLUXLENS_WEBHOOK_SECRET: 'whsec-0123456789',
      FLUXLENS_GITHUB_APP_ID: '12',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'FLUXLENS_GITHUB_APP_ID and FLUXLENS_GITHUB_PRIVATE_KEY go together',
    );
  });

  it('refuses an invalid value, naming the variable and not the value', async () => {
    const run = await start(serve, {
      FLUXLENS_WEBHOOK_SECRET: 'whsec-0123456789',
      FLUXLENS_REDIS_URL: 'http://s3cr3t@x',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('FLUXLENS_REDIS_URL');
    expect(run.stderr).not.toContain('s3cr3t');
  });

  it('refuses to start a worker without Redis', async () => {
    const run = await start(worker, { FLUXLENS_GITHUB_TOKEN: 'ghp_notReallyAToken123' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('FLUXLENS_REDIS_URL is required');
  });
});
