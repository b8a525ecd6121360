/**
 * The real GitHub client wired to a fresh GitHub emulator, as the github/ tests use it:
 * an App (id 4242, slug `fluxlens-test`) installed as 77 on acme/gitops, or a personal
 * token, with retry waits and write pacing shrunk so tests do not sleep.
 */
import { afterEach } from 'vitest';
import { createGitHubClient, type GitHubClientOptions } from '../../src/github/index.js';
import {
  createTestAppKey,
  startGitHubEmulator,
  type GitHubEmulator,
  type GitHubEmulatorOptions,
} from './github-emulator.js';

export const APP_ID = 4242;
export const APP_LOGIN = 'fluxlens-test[bot]';
export const INSTALLATION_ID = 77;
export const REPO = { owner: 'acme', repo: 'gitops' } as const;
export const HEAD_SHA = 'a'.repeat(40);
export const USER_TOKEN = 'ghp_fixtureToken0123456789abcdefghijkl';
/** An App installation token, as actions/create-github-app-token hands one to a workflow. */
export const APP_TOKEN = 'ghs_fixtureAppToken0123456789abcdefghij';
/** The App that token belongs to, installed as INSTALLATION_ID on acme/gitops. */
export const TOKEN_APP = { id: 9001, slug: 'review-bot' } as const;

/** Small waits: retries and rate limits are exercised without sleeping seconds. */
export const FAST: Pick<GitHubClientOptions, 'retry' | 'pacing'> = {
  retry: { retryBaseMs: 2, retryAfterUnitMs: 2 },
  pacing: { writeIntervalMs: 0, notificationIntervalMs: 0 },
};

let appKey: { privateKey: string; publicKey: string } | undefined;
/** One key per test file: generating RSA keys is the slow part. */
export function testAppKey(): { privateKey: string; publicKey: string } {
  appKey ??= createTestAppKey();
  return appKey;
}

export interface Fixture {
  emulator: GitHubEmulator;
  client: ReturnType<typeof createGitHubClient>;
  /** Every warning the client logged, as `message` plus fields. */
  warnings: { message: string; fields: Record<string, unknown> }[];
}

type ClientExtras = Omit<GitHubClientOptions, 'apiUrl' | 'auth'>;

function clientOptions(extras: ClientExtras, warnings: Fixture['warnings']): ClientExtras {
  const logger = {
    debug: () => {},
    info: () => {},
    warn: (fields: Record<string, unknown>, message?: string) =>
      warnings.push({ message: message ?? '', fields }),
    error: () => {},
  };
  return { ...FAST, logger, ...extras };
}

export async function startAppFixture(
  extras: ClientExtras & { pathPrefix?: string; privateKey?: string } = {},
): Promise<Fixture> {
  const { pathPrefix, privateKey, ...rest } = extras;
  const key = testAppKey();
  const options: GitHubEmulatorOptions = {
    app: { id: APP_ID, slug: 'fluxlens-test', publicKey: key.publicKey },
    ...(pathPrefix === undefined ? {} : { pathPrefix }),
  };
  const emulator = await startGitHubEmulator(options);
  emulator.seedInstallation({ id: INSTALLATION_ID, repositories: ['acme/gitops'] });
  const warnings: Fixture['warnings'] = [];
  const client = createGitHubClient({
    apiUrl: emulator.apiUrl,
    auth: { kind: 'app', appId: String(APP_ID), privateKey: privateKey ?? key.privateKey },
    ...clientOptions(rest, warnings),
  });
  return { emulator, client, warnings };
}

export async function startTokenFixture(
  extras: ClientExtras & { token?: string } = {},
): Promise<Fixture> {
  const { token, ...rest } = extras;
  const emulator = await startGitHubEmulator({ user: { login: 'ci-bot', token: USER_TOKEN } });
  const warnings: Fixture['warnings'] = [];
  const client = createGitHubClient({
    apiUrl: emulator.apiUrl,
    auth: { kind: 'token', token: token ?? USER_TOKEN },
    ...clientOptions(rest, warnings),
  });
  return { emulator, client, warnings };
}

/** Token mode with an App's installation token (TOKEN_APP's), which cannot look itself up. */
export async function startInstallationTokenFixture(extras: ClientExtras = {}): Promise<Fixture> {
  const emulator = await startGitHubEmulator({
    installationToken: { token: APP_TOKEN, installationId: INSTALLATION_ID, app: TOKEN_APP },
  });
  emulator.seedInstallation({ id: INSTALLATION_ID, repositories: ['acme/gitops'] });
  const warnings: Fixture['warnings'] = [];
  const client = createGitHubClient({
    apiUrl: emulator.apiUrl,
    auth: { kind: 'token', token: APP_TOKEN },
    ...clientOptions(extras, warnings),
  });
  return { emulator, client, warnings };
}

/** Fails the test on a request nobody expected or an expectation left unused. */
export async function finish(fixture: Fixture | undefined): Promise<void> {
  if (!fixture) return;
  try {
    fixture.emulator.assertNoUnexpected();
    fixture.emulator.assertAllUsed();
  } finally {
    await fixture.emulator.close();
  }
}

/**
 * Fixtures for one test file: each one started is finished after its test, which fails on
 * a request nobody expected or an expectation left unused.
 */
export function useFixtures(): {
  app: (extras?: Parameters<typeof startAppFixture>[0]) => Promise<Fixture>;
  token: (extras?: Parameters<typeof startTokenFixture>[0]) => Promise<Fixture>;
  installationToken: () => Promise<Fixture>;
} {
  let current: Fixture | undefined;
  afterEach(async () => {
    const started = current;
    current = undefined;
    await finish(started);
  });
  return {
    app: async (extras) => (current = await startAppFixture(extras)),
    token: async (extras) => (current = await startTokenFixture(extras)),
    installationToken: async () => (current = await startInstallationTokenFixture()),
  };
}
