/**
 * Gitea and Forgejo settings follow GitHub's rules: URL and token go together, secrets may
 * come from files, and a half-configured forge stops startup with a message naming the
 * variable, never a value.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../src/config.js';

const SIGNED = { FLUXLENS_WEBHOOK_SECRET: 'whsec-for-config-tests' };
const SECRET = 'Zq9-gitea-sekrit-Zq9';

function load(env: NodeJS.ProcessEnv) {
  return loadServiceConfig('server', env, { cpuCount: 2 });
}

function refusal(env: NodeJS.ProcessEnv): Error {
  try {
    load(env);
  } catch (err) {
    if (err instanceof Error) return err;
  }
  throw new Error('the configuration was accepted');
}

describe('Gitea and Forgejo settings', () => {
  it('serves no Gitea when neither its URL nor its token is set', () => {
    expect(load(SIGNED).gitea).toBeUndefined();
  });

  it('serves Gitea with its URL and token, verifying with the webhook secret by default', () => {
    const config = load({
      ...SIGNED,
      FLUXLENS_GITEA_URL: 'https://forge.example.com/',
      FLUXLENS_GITEA_TOKEN: SECRET,
    });
    expect(config.gitea).toEqual({
      url: 'https://forge.example.com',
      token: SECRET,
      webhookSecret: SIGNED.FLUXLENS_WEBHOOK_SECRET,
    });
  });

  it('reads the token and its own webhook secret from files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fluxlens-gitea-config-'));
    writeFileSync(join(dir, 'token'), `${SECRET}\n`);
    writeFileSync(join(dir, 'secret'), 'gitea-hook-secret\n');
    const config = load({
      ...SIGNED,
      FLUXLENS_GITEA_URL: 'http://127.0.0.1:3000',
      FLUXLENS_GITEA_TOKEN_FILE: join(dir, 'token'),
      FLUXLENS_GITEA_WEBHOOK_SECRET_FILE: join(dir, 'secret'),
    });
    expect(config.gitea).toEqual({
      url: 'http://127.0.0.1:3000',
      token: SECRET,
      webhookSecret: 'gitea-hook-secret',
    });
  });

  it.each([
    ['a URL without a token', { FLUXLENS_GITEA_URL: 'https://forge.example.com' }, 'go together'],
    ['a token without a URL', { FLUXLENS_GITEA_TOKEN: SECRET }, 'go together'],
    [
      'a webhook secret without the forge',
      { FLUXLENS_GITEA_WEBHOOK_SECRET: SECRET },
      'FLUXLENS_GITEA_WEBHOOK_SECRET is only used with',
    ],
    [
      'a URL that is not http(s)',
      { FLUXLENS_GITEA_URL: 'ftp://forge.example.com', FLUXLENS_GITEA_TOKEN: SECRET },
      'FLUXLENS_GITEA_URL',
    ],
    [
      'a token and its file at once',
      {
        FLUXLENS_GITEA_URL: 'https://forge.example.com',
        FLUXLENS_GITEA_TOKEN: SECRET,
        FLUXLENS_GITEA_TOKEN_FILE: '/nonexistent',
      },
      'set FLUXLENS_GITEA_TOKEN or FLUXLENS_GITEA_TOKEN_FILE, not both',
    ],
  ])('refuses %s at start, naming the variable and not the value', (_case, env, says) => {
    const { message } = refusal({ ...SIGNED, ...env });
    expect(message).toContain(says);
    expect(message).not.toContain(SECRET);
  });
});
