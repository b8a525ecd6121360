/**
 * The whole config object loadConfig and loadServiceConfig make from representative
 * environments: the documented defaults, every variable set, secrets from files, and the
 * role default of FLUXLENS_CHART_PRIVATE_ADDRESSES. Compared with toEqual, so a setting the
 * code adds, drops or renames shows up here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, loadServiceConfig, type Config } from '../../src/config.js';
import { createTestAppKey } from '../support/github-emulator.js';

const CPUS = 3;
const MIB = 1024 * 1024;
const DAY_SECONDS = 24 * 60 * 60;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fluxlens-config-values-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The registry credentials as their JSON (the class keeps its values private). */
function comparable<C extends Config>(config: C): C {
  const credentials = config.chartNetwork.credentials?.toJSON();
  return { ...config, chartNetwork: { ...config.chartNetwork, credentials } } as C;
}

/** What the CLI gets from an environment that sets nothing: the documented defaults. */
const RENDER_DEFAULTS = {
  toolsBinDir: join(homedir(), '.fluxlens', 'tools', 'bin'),
  path: '',
  toolEnv: {},
  concurrency: CPUS,
  toolTimeoutMs: 120_000,
  maxOutputBytes: 64 * MIB,
  cacheDir: join(homedir(), '.fluxlens', 'cache'),
  chartCacheDir: join(homedir(), '.fluxlens', 'cache', 'charts'),
  renderCache: { dir: join(homedir(), '.fluxlens', 'cache', 'renders'), maxBytes: 1024 * MIB },
  kustomizeServer: true,
  helmServer: true,
  chartNetwork: {
    privateAddresses: 'allow',
    connectTimeoutMs: 10_000,
    responseTimeoutMs: 30_000,
    unavailableTtlMs: 300_000,
    credentials: undefined,
  },
};

describe('the CLI config', () => {
  it('is the documented defaults when the environment sets nothing', () => {
    expect(loadConfig({}, CPUS)).toEqual(RENDER_DEFAULTS);
  });

  it('takes every render setting from the environment, and only the allowlisted tool env', () => {
    const registry = file(
      'docker-config.json',
      JSON.stringify({ auths: { 'charts.example.com': { username: 'ci', password: 'pw' } } }),
    );
    const env = {
      FLUXLENS_TOOLS_DIR: '/opt/fluxlens-tools',
      FLUXLENS_CONCURRENCY: '7',
      FLUXLENS_TOOL_TIMEOUT_SECONDS: '45',
      FLUXLENS_MAX_OUTPUT_MB: '16',
      FLUXLENS_CACHE_DIR: '/var/cache/fluxlens',
      FLUXLENS_RENDER_CACHE_MB: '256',
      FLUXLENS_KUSTOMIZE_SERVER: 'off',
      FLUXLENS_HELM_SERVER: 'off',
      FLUXLENS_CHART_CONNECT_TIMEOUT_SECONDS: '3',
      FLUXLENS_CHART_RESPONSE_TIMEOUT_SECONDS: '9',
      FLUXLENS_CHART_UNAVAILABLE_TTL_SECONDS: '42',
      FLUXLENS_CHART_PRIVATE_ADDRESSES: 'deny',
      FLUXLENS_REGISTRY_CONFIG: registry,
      PATH: '/usr/local/bin:/usr/bin',
      HOME: '/home/ci',
      TMPDIR: '/tmp/ci',
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      GITHUB_TOKEN: 'ghp_never-for-tools',
      FLUXLENS_GITHUB_TOKEN: 'ghp_never-for-tools-either',
    };
    expect(comparable(loadConfig(env, CPUS))).toEqual({
      toolsBinDir: join(env.FLUXLENS_TOOLS_DIR, 'bin'),
      path: env.PATH,
      toolEnv: { HOME: env.HOME, TMPDIR: env.TMPDIR, LANG: env.LANG, TZ: env.TZ },
      concurrency: Number(env.FLUXLENS_CONCURRENCY),
      toolTimeoutMs: Number(env.FLUXLENS_TOOL_TIMEOUT_SECONDS) * 1000,
      maxOutputBytes: Number(env.FLUXLENS_MAX_OUTPUT_MB) * MIB,
      cacheDir: env.FLUXLENS_CACHE_DIR,
      chartCacheDir: join(env.FLUXLENS_CACHE_DIR, 'charts'),
      renderCache: {
        dir: join(env.FLUXLENS_CACHE_DIR, 'renders'),
        maxBytes: Number(env.FLUXLENS_RENDER_CACHE_MB) * MIB,
      },
      kustomizeServer: false,
      helmServer: false,
      chartNetwork: {
        privateAddresses: env.FLUXLENS_CHART_PRIVATE_ADDRESSES,
        connectTimeoutMs: Number(env.FLUXLENS_CHART_CONNECT_TIMEOUT_SECONDS) * 1000,
        responseTimeoutMs: Number(env.FLUXLENS_CHART_RESPONSE_TIMEOUT_SECONDS) * 1000,
        unavailableTtlMs: Number(env.FLUXLENS_CHART_UNAVAILABLE_TTL_SECONDS) * 1000,
        credentials: {
          source: `FLUXLENS_REGISTRY_CONFIG (${registry})`,
          hosts: ['charts.example.com'],
        },
      },
    });
  });

  it('has no render cache at FLUXLENS_RENDER_CACHE_MB=0', () => {
    expect(loadConfig({ FLUXLENS_RENDER_CACHE_MB: '0' }, CPUS)).toEqual({
      ...RENDER_DEFAULTS,
      renderCache: undefined,
    });
  });
});

const WEBHOOK_SECRET = 'whsec-for-config-values';

/** Every service secret, as plain variables; the _FILE test writes each to a file. */
const SECRETS = {
  FLUXLENS_WEBHOOK_SECRET: WEBHOOK_SECRET,
  FLUXLENS_WEBHOOK_SECRET_PREVIOUS: 'whsec-being-replaced-for-config-values',
  FLUXLENS_GITHUB_TOKEN: 'ghp_token-for-config-values',
  FLUXLENS_API_TOKEN: 'api-token-for-config-values',
  FLUXLENS_REDIS_URL: 'rediss://:redis-password@redis.internal:6380/2',
  FLUXLENS_REPORT_SIGNING_KEY: 'report-signing-key-for-config-values',
};

/** Every service setting but the secrets and the CA file, away from its default. */
const SERVICE_SETTINGS = {
  FLUXLENS_RESULT_TTL_DAYS: '7',
  FLUXLENS_REDIS_PREFIX: 'fluxlens-staging',
  FLUXLENS_PORT: '3000',
  FLUXLENS_HOST: '127.0.0.1',
  FLUXLENS_INSECURE_NO_WEBHOOK_SECRET: 'no',
  FLUXLENS_WEBHOOK_BODY_TIMEOUT_SECONDS: '5',
  FLUXLENS_WEBHOOK_LARGE_BODIES: '9',
  FLUXLENS_COMMAND_BOTS: ' renovate[bot], ci-bot[bot] ,',
  FLUXLENS_GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
  FLUXLENS_GITHUB_GIT_URL: 'https://ghe.example.com//',
  FLUXLENS_API_RENDERS_PER_MINUTE: '11',
  FLUXLENS_OWNER_RENDERS_PER_MINUTE: '12',
  FLUXLENS_COMMANDS_PER_MINUTE: '13',
  FLUXLENS_PUBLIC_URL: 'https://fluxlens.example.com/',
  FLUXLENS_REPORT_LINK_DAYS: '14',
  FLUXLENS_OFFLINE: 'on',
  FLUXLENS_RENDER_FORKS: '1',
  FLUXLENS_RENDER_DRAFTS: 'yes',
  FLUXLENS_REPOSITORIES: 'acme/fleet, acme/infra',
  FLUXLENS_COMMENT: 'changes',
  FLUXLENS_WORKER_CONCURRENCY: '5',
  FLUXLENS_WORKER_LOCK_SECONDS: '40',
  FLUXLENS_SHUTDOWN_GRACE_SECONDS: '50',
  FLUXLENS_RESYNC_INTERVAL_SECONDS: '600',
  FLUXLENS_METRICS_PORT: '0',
  FLUXLENS_LOG_LEVEL: 'debug',
};

describe('the service config', () => {
  it('is the documented defaults, with private chart addresses denied, for a server with a webhook secret', () => {
    const config = loadServiceConfig(
      'server',
      { FLUXLENS_WEBHOOK_SECRET: WEBHOOK_SECRET },
      { cpuCount: CPUS },
    );
    expect(config).toEqual({
      ...RENDER_DEFAULTS,
      chartNetwork: { ...RENDER_DEFAULTS.chartNetwork, privateAddresses: 'deny' },
      redisUrl: undefined,
      redisCa: undefined,
      resultTtlSeconds: 30 * DAY_SECONDS,
      redisPrefix: 'fluxlens',
      port: 8080,
      host: '0.0.0.0',
      webhookSecret: WEBHOOK_SECRET,
      previousWebhookSecret: undefined,
      insecureNoWebhookSecret: false,
      webhookBodyTimeoutMs: 20_000,
      webhookLargeBodies: 4,
      commandBots: undefined,
      github: { apiUrl: 'https://api.github.com', gitUrl: 'https://github.com', auth: undefined },
      apiToken: undefined,
      rateLimits: { apiRendersPerToken: 60, apiRendersPerOwner: 30, commandsPerInstallation: 30 },
      publicUrl: undefined,
      reportSigningKey: undefined,
      reportLinkDays: 30,
      offline: false,
      renderForks: false,
      renderDrafts: false,
      repositories: undefined,
      comment: 'always',
      workerConcurrency: 2,
      workerLockMs: 30_000,
      shutdownGraceMs: 60_000,
      resyncIntervalMs: 0,
      metricsPort: 9090,
      logLevel: 'info',
    });
  });

  it.each([
    ['allow', 'allow'],
    ['deny', 'deny'],
  ] as const)(
    'lets the operator set FLUXLENS_CHART_PRIVATE_ADDRESSES=%s for the service',
    (value, expected) => {
      const env = { FLUXLENS_REDIS_URL: 'redis://127.0.0.1:6379' };
      const config = loadServiceConfig(
        'worker',
        { ...env, FLUXLENS_CHART_PRIVATE_ADDRESSES: value },
        { cpuCount: CPUS },
      );
      expect(config.chartNetwork.privateAddresses).toBe(expected);
      expect(loadConfig({ FLUXLENS_CHART_PRIVATE_ADDRESSES: value }).chartNetwork).toEqual(
        config.chartNetwork,
      );
    },
  );

  it('takes every service setting from the environment, field by field', () => {
    const ca = file(
      'redis-ca.pem',
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
    );
    const env = {
      ...SECRETS,
      ...SERVICE_SETTINGS,
      FLUXLENS_REDIS_CA_PATH: ca,
      FLUXLENS_CACHE_DIR: '/var/cache/fluxlens',
    };
    const config = loadServiceConfig('worker', env, { cpuCount: CPUS });
    expect(config).toEqual({
      ...RENDER_DEFAULTS,
      cacheDir: env.FLUXLENS_CACHE_DIR,
      chartCacheDir: join(env.FLUXLENS_CACHE_DIR, 'charts'),
      renderCache: { dir: join(env.FLUXLENS_CACHE_DIR, 'renders'), maxBytes: 1024 * MIB },
      chartNetwork: { ...RENDER_DEFAULTS.chartNetwork, privateAddresses: 'deny' },
      redisUrl: env.FLUXLENS_REDIS_URL,
      redisCa: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
      resultTtlSeconds: Number(env.FLUXLENS_RESULT_TTL_DAYS) * DAY_SECONDS,
      redisPrefix: env.FLUXLENS_REDIS_PREFIX,
      port: Number(env.FLUXLENS_PORT),
      host: env.FLUXLENS_HOST,
      webhookSecret: env.FLUXLENS_WEBHOOK_SECRET,
      previousWebhookSecret: env.FLUXLENS_WEBHOOK_SECRET_PREVIOUS,
      insecureNoWebhookSecret: false,
      webhookBodyTimeoutMs: Number(env.FLUXLENS_WEBHOOK_BODY_TIMEOUT_SECONDS) * 1000,
      webhookLargeBodies: Number(env.FLUXLENS_WEBHOOK_LARGE_BODIES),
      commandBots: ['renovate[bot]', 'ci-bot[bot]'],
      github: {
        apiUrl: 'https://ghe.example.com/api/v3',
        gitUrl: 'https://ghe.example.com',
        auth: { kind: 'token', token: env.FLUXLENS_GITHUB_TOKEN },
      },
      apiToken: env.FLUXLENS_API_TOKEN,
      rateLimits: {
        apiRendersPerToken: Number(env.FLUXLENS_API_RENDERS_PER_MINUTE),
        apiRendersPerOwner: Number(env.FLUXLENS_OWNER_RENDERS_PER_MINUTE),
        commandsPerInstallation: Number(env.FLUXLENS_COMMANDS_PER_MINUTE),
      },
      publicUrl: 'https://fluxlens.example.com',
      reportSigningKey: env.FLUXLENS_REPORT_SIGNING_KEY,
      reportLinkDays: Number(env.FLUXLENS_REPORT_LINK_DAYS),
      offline: true,
      renderForks: true,
      renderDrafts: true,
      repositories: ['acme/fleet', 'acme/infra'],
      comment: env.FLUXLENS_COMMENT,
      workerConcurrency: Number(env.FLUXLENS_WORKER_CONCURRENCY),
      workerLockMs: Number(env.FLUXLENS_WORKER_LOCK_SECONDS) * 1000,
      shutdownGraceMs: Number(env.FLUXLENS_SHUTDOWN_GRACE_SECONDS) * 1000,
      resyncIntervalMs: Number(env.FLUXLENS_RESYNC_INTERVAL_SECONDS) * 1000,
      metricsPort: Number(env.FLUXLENS_METRICS_PORT),
      logLevel: env.FLUXLENS_LOG_LEVEL,
    });
  });

  it('keeps results forever at FLUXLENS_RESULT_TTL_DAYS=0', () => {
    const config = loadServiceConfig(
      'worker',
      { FLUXLENS_REDIS_URL: 'redis://127.0.0.1:6379', FLUXLENS_RESULT_TTL_DAYS: '0' },
      { cpuCount: CPUS },
    );
    expect(config.resultTtlSeconds).toBeUndefined();
  });

  it.each(['server', 'worker'] as const)(
    'makes the same %s config from secrets in files as from the same secrets in variables',
    (role) => {
      const inline = { ...SECRETS, ...SERVICE_SETTINGS };
      const fromFiles: NodeJS.ProcessEnv = { ...SERVICE_SETTINGS };
      for (const [name, value] of Object.entries(SECRETS)) {
        fromFiles[`${name}_FILE`] = file(`${role}-${name}`, `${value}\n`);
      }
      const expected = loadServiceConfig(role, inline, { cpuCount: CPUS });
      expect(loadServiceConfig(role, fromFiles, { cpuCount: CPUS })).toEqual(expected);
      expect(expected.webhookSecret).toBe(SECRETS.FLUXLENS_WEBHOOK_SECRET);
      expect(expected.redisUrl).toBe(SECRETS.FLUXLENS_REDIS_URL);
    },
  );

  it('makes the same App credentials from a key file as from the key in a variable', () => {
    const { privateKey } = createTestAppKey();
    const base = { FLUXLENS_WEBHOOK_SECRET: WEBHOOK_SECRET, FLUXLENS_GITHUB_APP_ID: '4242' };
    const inline = loadServiceConfig(
      'server',
      { ...base, FLUXLENS_GITHUB_PRIVATE_KEY: privateKey.replace(/\n$/, '') },
      { cpuCount: CPUS },
    );
    const fromFile = loadServiceConfig(
      'server',
      { ...base, FLUXLENS_GITHUB_PRIVATE_KEY_FILE: file('app.pem', privateKey) },
      { cpuCount: CPUS },
    );
    expect(fromFile).toEqual(inline);
    expect(inline.github.auth).toEqual({
      kind: 'app',
      appId: '4242',
      privateKey: privateKey.replace(/\n$/, ''),
    });
  });
});
