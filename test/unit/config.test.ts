/**
 * The service's settings as loadServiceConfig reads them from an environment: defaults,
 * refusals that name the variable and never its value, secrets from files, and the rules
 * that span variables. The configuration table of docs/configuration.md is checked against
 * the code here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENV_VARIABLES,
  SECRET_FILE_VARIABLES,
  loadConfig,
  loadServiceConfig,
  type ServiceConfig,
} from '../../src/config.js';
import { SetupError } from '../../src/errors.js';
import { createTestAppKey } from '../support/github-emulator.js';
import { projectRoot } from '../support/paths.js';

const CPUS = 3;
const MIB = 1024 * 1024;
const SIGNED = { FLUXLENS_WEBHOOK_SECRET: 'whsec-for-config-tests' };
const GITEA = {
  FLUXLENS_GITEA_URL: 'https://forge.example.com',
  FLUXLENS_GITEA_TOKEN: 'gitea-token',
};
/** In every refused value below; no message may repeat it. */
const SECRET = 'Zq9-sekrit-Zq9';

type Role = 'server' | 'worker';

function load(role: Role, env: NodeJS.ProcessEnv): ServiceConfig {
  return loadServiceConfig(role, env, { cpuCount: CPUS });
}

/** The SetupError that stops startup with this environment. */
function refusal(role: Role, env: NodeJS.ProcessEnv): SetupError {
  try {
    load(role, env);
  } catch (err) {
    if (err instanceof SetupError) return err;
    throw err;
  }
  throw new Error('the environment was accepted');
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fluxlens-config-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function secretFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('loadServiceConfig', () => {
  it('starts a server with the documented defaults when only the webhook secret is set', () => {
    expect(load('server', SIGNED)).toMatchObject({
      redisUrl: undefined,
      redisPrefix: 'fluxlens',
      port: 8080,
      host: '0.0.0.0',
      webhookSecret: SIGNED.FLUXLENS_WEBHOOK_SECRET,
      insecureNoWebhookSecret: false,
      github: { apiUrl: 'https://api.github.com', gitUrl: 'https://github.com', auth: undefined },
      apiToken: undefined,
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
      concurrency: CPUS,
      toolTimeoutMs: 120_000,
      maxOutputBytes: 64 * MIB,
      toolsBinDir: join(homedir(), '.fluxlens', 'tools', 'bin'),
      cacheDir: join(homedir(), '.fluxlens', 'cache'),
    });
  });

  it.each([
    ['FLUXLENS_REDIS_URL', `https://:${SECRET}@cache.internal:6379`],
    ['FLUXLENS_API_TOKEN', SECRET],
    ['FLUXLENS_REPORT_SIGNING_KEY', SECRET],
    ['FLUXLENS_GITHUB_APP_ID', `${SECRET}.1`],
    ['FLUXLENS_GITHUB_API_URL', `ftp://user:${SECRET}@ghe.example.com`],
    ['FLUXLENS_GITHUB_GIT_URL', `https://x-access-token:${SECRET}@github.com`],
    ['FLUXLENS_PUBLIC_URL', `${SECRET}.example.com`],
    ['FLUXLENS_REPOSITORIES', `acme/fleet,${SECRET}`],
    ['FLUXLENS_PORT', SECRET],
    ['FLUXLENS_COMMENT', SECRET],
    ['FLUXLENS_RENDER_FORKS', SECRET],
    ['FLUXLENS_LOG_LEVEL', SECRET],
    ['FLUXLENS_MAX_OUTPUT_MB', SECRET],
  ])('refuses an invalid %s, naming the variable and never its value', (name, value) => {
    const { message } = refusal('server', { ...SIGNED, [name]: value });
    expect(message).toContain(name);
    expect(message).not.toContain(value);
    expect(message).not.toContain(SECRET);
  });

  it('refuses an invalid secret read from a file without repeating the file', () => {
    const path = secretFile('short-token', `${SECRET}\n`);
    const { message } = refusal('server', { ...SIGNED, FLUXLENS_API_TOKEN_FILE: path });
    expect(message).toContain('FLUXLENS_API_TOKEN');
    expect(message).not.toContain(SECRET);
  });
});

describe('secrets from files (NAME_FILE)', () => {
  it('reads the webhook secret from a file, without its trailing newline', () => {
    const path = secretFile('webhook-secret', 'whsec-from-a-mounted-secret\n');
    const config = load('server', { FLUXLENS_WEBHOOK_SECRET_FILE: path });
    expect(config.webhookSecret).toBe('whsec-from-a-mounted-secret');
  });

  it('reads the App private key from a file with its line breaks', () => {
    const { privateKey } = createTestAppKey();
    const path = secretFile('app-key.pem', privateKey);
    const config = load('server', {
      ...SIGNED,
      FLUXLENS_GITHUB_APP_ID: '12345',
      FLUXLENS_GITHUB_PRIVATE_KEY_FILE: path,
    });
    expect(config.github.auth).toEqual({
      kind: 'app',
      appId: '12345',
      privateKey: privateKey.replace(/\n$/, ''),
    });
  });

  it.each(SECRET_FILE_VARIABLES)('refuses %s together with the variable it stands for', (file) => {
    const name = file.replace(/_FILE$/, '');
    const path = secretFile('both', 'from-the-file-0123456789');
    const { message } = refusal('server', {
      ...SIGNED,
      [name]: `${SECRET}-0123456789`,
      [file]: path,
    });
    expect(message).toContain(`set ${name} or ${file}, not both`);
    expect(message).not.toContain(SECRET);
  });

  it.each([
    'FLUXLENS_API_TOKEN',
    'FLUXLENS_REPORT_SIGNING_KEY',
    'FLUXLENS_WEBHOOK_SECRET_PREVIOUS',
  ] as const)(
    'starts without %s when its file is missing: an optional key the Secret does not hold',
    (name) => {
      const config = load('server', { ...SIGNED, [`${name}_FILE`]: join(dir, 'not-in-secret') });
      expect(config.apiToken).toBeUndefined();
      expect(config.reportSigningKey).toBeUndefined();
      expect(config.previousWebhookSecret).toBeUndefined();
    },
  );

  it('still refuses an optional secret whose file exists but cannot be read', () => {
    const { message } = refusal('server', { ...SIGNED, FLUXLENS_API_TOKEN_FILE: dir });
    expect(message).toContain('FLUXLENS_API_TOKEN_FILE');
    expect(message).toContain('EISDIR');
  });

  it('reads an optional secret from its file when the file is there', () => {
    const path = secretFile('api-token', 'api-token-from-a-mounted-secret\n');
    const config = load('server', { ...SIGNED, FLUXLENS_API_TOKEN_FILE: path });
    expect(config.apiToken).toBe('api-token-from-a-mounted-secret');
  });

  it('names the variable and the reason when the file cannot be read', () => {
    const missing = join(dir, 'not-mounted');
    const { message } = refusal('server', { FLUXLENS_WEBHOOK_SECRET_FILE: missing });
    expect(message).toContain('FLUXLENS_WEBHOOK_SECRET_FILE');
    expect(message).toContain('ENOENT');
  });
});

describe('webhook secret rotation (FLUXLENS_WEBHOOK_SECRET_PREVIOUS)', () => {
  it('keeps the previous secret beside the current one, from a variable or its file', () => {
    const previous = 'whsec-being-replaced';
    expect(load('server', { ...SIGNED, FLUXLENS_WEBHOOK_SECRET_PREVIOUS: previous })).toMatchObject(
      { webhookSecret: SIGNED.FLUXLENS_WEBHOOK_SECRET, previousWebhookSecret: previous },
    );
    const path = secretFile('webhook-secret-previous', `${previous}\n`);
    const config = load('server', { ...SIGNED, FLUXLENS_WEBHOOK_SECRET_PREVIOUS_FILE: path });
    expect(config.previousWebhookSecret).toBe(previous);
  });

  it('has no previous secret unless one is set', () => {
    expect(load('server', SIGNED).previousWebhookSecret).toBeUndefined();
  });

  it.each(['server', 'worker'] as const)(
    'refuses a %s with a previous webhook secret but no current one, never naming its value',
    (role) => {
      const { message } = refusal(role, {
        FLUXLENS_INSECURE_NO_WEBHOOK_SECRET: 'true',
        FLUXLENS_REDIS_URL: 'redis://127.0.0.1:6379',
        FLUXLENS_WEBHOOK_SECRET_PREVIOUS: SECRET,
      });
      expect(message).toContain(
        'FLUXLENS_WEBHOOK_SECRET_PREVIOUS is only used with FLUXLENS_WEBHOOK_SECRET',
      );
      expect(message).not.toContain(SECRET);
    },
  );
});

describe('GitHub credentials', () => {
  it.each([
    ['an App id without its private key', { FLUXLENS_GITHUB_APP_ID: '12345' }],
    ['a private key without its App id', { FLUXLENS_GITHUB_PRIVATE_KEY: SECRET }],
  ])('refuses %s', (_case, env) => {
    const { message } = refusal('server', { ...SIGNED, ...env });
    expect(message).toContain('FLUXLENS_GITHUB_APP_ID and FLUXLENS_GITHUB_PRIVATE_KEY go together');
    expect(message).not.toContain(SECRET);
  });

  it('refuses App credentials and a token at once', () => {
    const { message } = refusal('server', {
      ...SIGNED,
      FLUXLENS_GITHUB_APP_ID: '12345',
      FLUXLENS_GITHUB_PRIVATE_KEY: SECRET,
      FLUXLENS_GITHUB_TOKEN: `ghp_${SECRET}`,
    });
    expect(message).toContain('not both');
    expect(message).not.toContain(SECRET);
  });

  it('restores the line breaks of a private key pasted into one line as \\n', () => {
    const config = load('server', {
      ...SIGNED,
      FLUXLENS_GITHUB_APP_ID: '12345',
      FLUXLENS_GITHUB_PRIVATE_KEY: '-----BEGIN KEY-----\\nAAAA\\n-----END KEY-----',
    });
    expect(config.github.auth).toEqual({
      kind: 'app',
      appId: '12345',
      privateKey: '-----BEGIN KEY-----\nAAAA\n-----END KEY-----',
    });
  });

  it('takes a token alone as token mode', () => {
    const config = load('server', { ...SIGNED, FLUXLENS_GITHUB_TOKEN: 'ghp_token-for-tests' });
    expect(config.github.auth).toEqual({ kind: 'token', token: 'ghp_token-for-tests' });
  });
});

describe('what each role needs', () => {
  it('refuses to start the server without a webhook secret', () => {
    const { message } = refusal('server', {});
    expect(message).toContain('FLUXLENS_WEBHOOK_SECRET is required');
  });

  it('starts the server unsigned only with FLUXLENS_INSECURE_NO_WEBHOOK_SECRET=true', () => {
    expect(refusal('server', { FLUXLENS_INSECURE_NO_WEBHOOK_SECRET: 'false' }).message).toContain(
      'FLUXLENS_WEBHOOK_SECRET is required',
    );
    const config = load('server', { FLUXLENS_INSECURE_NO_WEBHOOK_SECRET: 'true' });
    expect(config.insecureNoWebhookSecret).toBe(true);
    expect(config.webhookSecret).toBeUndefined();
  });

  it('refuses to start a worker without FLUXLENS_REDIS_URL', () => {
    const { message } = refusal('worker', SIGNED);
    expect(message).toContain('FLUXLENS_REDIS_URL is required');
  });

  it('starts a worker with Redis and no webhook secret', () => {
    const config = load('worker', { FLUXLENS_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
  });
});

describe('chart registry credentials (FLUXLENS_REGISTRY_CONFIG)', () => {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const registryFile = (name: string, content: unknown) =>
    secretFile(name, typeof content === 'string' ? content : JSON.stringify(content));
  const credentialsOf = (path: string) => loadConfig({ FLUXLENS_REGISTRY_CONFIG: path });

  it('reads no credentials at all unless the operator names a file', () => {
    expect(loadConfig({ HOME: homedir() }).chartNetwork.credentials).toBeUndefined();
  });

  it('reads logins, login pairs and identity tokens by host, keys written as Docker writes them', () => {
    const path = registryFile('docker-config.json', {
      auths: {
        'https://Charts.Example.com/v1/': { auth: b64(`ci:${SECRET}`), email: 'ci@example.com' },
        'registry.lan:5000': { username: 'lab', password: SECRET },
        'http://10.0.0.7:8080': { auth: b64(`lab:${SECRET}`) },
        'acr.example.io': {
          auth: b64('00000000-0000-0000-0000-000000000000:'),
          identitytoken: SECRET,
        },
        'ghcr.io:443': { username: 'me', password: SECRET },
      },
      HttpHeaders: { 'User-Agent': 'docker' },
    });
    const credentials = credentialsOf(path).chartNetwork.credentials;
    expect(credentials?.hosts).toEqual([
      '10.0.0.7:8080',
      'acr.example.io',
      'charts.example.com',
      'ghcr.io',
      'registry.lan:5000',
    ]);
    expect(credentials?.forHost('charts.example.com')).toEqual({
      host: 'charts.example.com',
      plainHttp: false,
      secret: { kind: 'basic', username: 'ci', password: SECRET },
    });
    expect(credentials?.forHost('10.0.0.7:8080')?.plainHttp).toBe(true);
    expect(credentials?.forHost('registry.lan:5000')?.secret).toEqual({
      kind: 'basic',
      username: 'lab',
      password: SECRET,
    });
    expect(credentials?.forHost('acr.example.io')?.secret).toEqual({
      kind: 'identity-token',
      token: SECRET,
    });
    expect(credentials?.forHost('registry.lan')).toBeUndefined();
  });

  it('keeps the values out of JSON and util.inspect, in the CLI and the service config', () => {
    const path = registryFile('one-login.json', {
      auths: { 'charts.example.com': { auth: b64(`ci:${SECRET}`) } },
    });
    const cli = credentialsOf(path);
    const service = load('server', { ...SIGNED, FLUXLENS_REGISTRY_CONFIG: path });
    expect(service.chartNetwork.credentials?.hosts).toEqual(['charts.example.com']);
    for (const config of [cli, service]) {
      const printed = JSON.stringify(config) + inspect(config, { depth: 9 });
      expect(printed).toContain('charts.example.com');
      expect(printed).not.toContain(SECRET);
      expect(printed).not.toContain(b64(`ci:${SECRET}`));
    }
  });

  it.each([
    [
      'a file that is not there',
      () => join(dir, 'no-such-registry-config.json'),
      /cannot be read \(ENOENT\)/,
    ],
    ['a folder', () => dir, /cannot be read \(EISDIR\)/],
    [
      'text that is not JSON',
      () => registryFile('not-json', `{"auths": ${SECRET}`),
      /is not valid JSON/,
    ],
    [
      'auths that is not a map',
      () => registryFile('list', { auths: [SECRET] }),
      /is not a registry config file \(auths\)/,
    ],
    [
      'a value of the wrong type',
      () => registryFile('number', { auths: { 'x.io': { auth: 5, password: SECRET } } }),
      /entry 'x.io': auth/,
    ],
    [
      'an entry without credentials',
      () => registryFile('empty-entry', { auths: { 'x.io': {} } }),
      /entry 'x.io': it holds no credentials/,
    ],
    [
      'a password without a username',
      () => registryFile('no-user', { auths: { 'x.io': { password: SECRET } } }),
      /entry 'x.io': it holds no credentials/,
    ],
    [
      'auth that is not base64 of user:password',
      () => registryFile('bad-auth', { auths: { 'x.io': { auth: `${SECRET}!` } } }),
      /entry 'x.io': its auth is not the base64 of user:password/,
    ],
    [
      'auth without a colon',
      () => registryFile('no-colon', { auths: { 'x.io': { auth: b64(SECRET) } } }),
      /its auth is not the base64/,
    ],
    [
      'a key with a login in it',
      () =>
        registryFile('userinfo-key', { auths: { [`me:${SECRET}@x.io`]: { auth: b64('a:b') } } }),
      /has an entry, whose key is not a host/,
    ],
    [
      'a credential helper',
      () => registryFile('helper', { auths: {}, credsStore: 'desktop' }),
      /names a credential helper/,
    ],
    [
      'per-registry helpers',
      () => registryFile('helpers', { credHelpers: { 'x.io': 'ecr-login' } }),
      /names a credential helper/,
    ],
    [
      'two different logins for one host',
      () =>
        registryFile('twice', {
          auths: { 'x.io': { auth: b64(`a:${SECRET}`) }, 'https://x.io': { auth: b64('a:other') } },
        }),
      /has two entries with different credentials for x.io/,
    ],
  ])('stops startup on %s, naming the file and never its content', (_case, file, reason) => {
    const path = file();
    let message = '';
    try {
      credentialsOf(path);
    } catch (err) {
      expect(err).toBeInstanceOf(SetupError);
      message = (err as Error).message;
    }
    expect(message).toContain(`invalid environment: FLUXLENS_REGISTRY_CONFIG: ${path} `);
    expect(message).toMatch(reason);
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(b64(SECRET).slice(0, 12));
  });
});

/** The "## Environment variables" section of docs/configuration.md, up to the next section. */
function configurationSection(): string {
  const doc = readFileSync(join(projectRoot, 'docs', 'configuration.md'), 'utf8');
  const start = doc.indexOf('\n## Environment variables\n');
  const end = doc.indexOf('\n## ', start + 1);
  return start < 0 ? '' : doc.slice(start, end < 0 ? undefined : end);
}

/** Its table: variable -> default cell, backticks dropped; header and rule rows skipped. */
function configurationTable(): Map<string, string> {
  const rows = configurationSection()
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2);
  const table = new Map<string, string>();
  for (const row of rows) {
    const [name = '', shown = ''] = row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim().replaceAll('`', ''));
    table.set(name, shown);
  }
  return table;
}

const unset = (value: string | undefined) => value ?? 'unset';
const underHome = (path: string) => path.replace(homedir(), '~');

/** Each variable's default as the table writes it, read from the config the code makes. */
const SHOWN_DEFAULT: Record<string, (c: ServiceConfig) => string> = {
  FLUXLENS_TOOLS_DIR: (c) => underHome(dirname(c.toolsBinDir)),
  FLUXLENS_CONCURRENCY: (c) => (c.concurrency === CPUS ? 'CPU count' : String(c.concurrency)),
  FLUXLENS_TOOL_TIMEOUT_SECONDS: (c) => String(c.toolTimeoutMs / 1000),
  FLUXLENS_MAX_OUTPUT_MB: (c) => String(c.maxOutputBytes / MIB),
  FLUXLENS_CACHE_DIR: (c) => underHome(c.cacheDir),
  FLUXLENS_RENDER_CACHE_MB: (c) => String((c.renderCache?.maxBytes ?? 0) / MIB),
  FLUXLENS_KUSTOMIZE_SERVER: (c) => (c.kustomizeServer ? 'on' : 'off'),
  FLUXLENS_HELM_SERVER: (c) => (c.helmServer ? 'on' : 'off'),
  FLUXLENS_CHART_CONNECT_TIMEOUT_SECONDS: (c) => String(c.chartNetwork.connectTimeoutMs / 1000),
  FLUXLENS_CHART_RESPONSE_TIMEOUT_SECONDS: (c) => String(c.chartNetwork.responseTimeoutMs / 1000),
  FLUXLENS_CHART_PRIVATE_ADDRESSES: (c) =>
    `CLI ${loadConfig({}).chartNetwork.privateAddresses}, service ${c.chartNetwork.privateAddresses}`,
  FLUXLENS_CHART_UNAVAILABLE_TTL_SECONDS: (c) => String(c.chartNetwork.unavailableTtlMs / 1000),
  FLUXLENS_REGISTRY_CONFIG: (c) => unset(c.chartNetwork.credentials ? 'set' : undefined),
  FLUXLENS_REDIS_URL: (c) => unset(c.redisUrl),
  FLUXLENS_REDIS_CA_PATH: (c) => unset(c.redisCa),
  FLUXLENS_RESULT_TTL_DAYS: (c) => String((c.resultTtlSeconds ?? 0) / (24 * 60 * 60)),
  FLUXLENS_REDIS_PREFIX: (c) => c.redisPrefix,
  FLUXLENS_PORT: (c) => String(c.port),
  FLUXLENS_HOST: (c) => c.host,
  FLUXLENS_WEBHOOK_SECRET: (c) => unset(c.webhookSecret),
  FLUXLENS_WEBHOOK_SECRET_PREVIOUS: (c) => unset(c.previousWebhookSecret),
  FLUXLENS_INSECURE_NO_WEBHOOK_SECRET: (c) => String(c.insecureNoWebhookSecret),
  FLUXLENS_WEBHOOK_BODY_TIMEOUT_SECONDS: (c) => String(c.webhookBodyTimeoutMs / 1000),
  FLUXLENS_WEBHOOK_LARGE_BODIES: (c) => String(c.webhookLargeBodies),
  FLUXLENS_COMMAND_BOTS: (c) => unset(c.commandBots?.join(',')),
  FLUXLENS_GITHUB_APP_ID: (c) => unset(c.github.auth?.kind === 'app' ? 'set' : undefined),
  FLUXLENS_GITHUB_PRIVATE_KEY: (c) => unset(c.github.auth?.kind === 'app' ? 'set' : undefined),
  FLUXLENS_GITHUB_TOKEN: (c) => unset(c.github.auth?.kind === 'token' ? 'set' : undefined),
  FLUXLENS_GITHUB_API_URL: (c) => c.github.apiUrl,
  FLUXLENS_GITHUB_GIT_URL: (c) => c.github.gitUrl,
  FLUXLENS_GITEA_URL: (c) => unset(c.gitea?.url),
  FLUXLENS_GITEA_TOKEN: (c) => unset(c.gitea?.token),
  // Shown as the variable it falls back to, which a configured Gitea then uses.
  FLUXLENS_GITEA_WEBHOOK_SECRET: (c) => {
    const gitea = load('server', { ...SIGNED, ...GITEA }).gitea;
    return gitea?.webhookSecret === c.webhookSecret ? 'FLUXLENS_WEBHOOK_SECRET' : 'unset';
  },
  FLUXLENS_API_TOKEN: (c) => unset(c.apiToken),
  FLUXLENS_API_RENDERS_PER_MINUTE: (c) => String(c.rateLimits.apiRendersPerToken),
  FLUXLENS_OWNER_RENDERS_PER_MINUTE: (c) => String(c.rateLimits.apiRendersPerOwner),
  FLUXLENS_COMMANDS_PER_MINUTE: (c) => String(c.rateLimits.commandsPerInstallation),
  FLUXLENS_PUBLIC_URL: (c) => unset(c.publicUrl),
  FLUXLENS_REPORT_SIGNING_KEY: (c) => unset(c.reportSigningKey),
  FLUXLENS_REPORT_LINK_DAYS: (c) => String(c.reportLinkDays),
  FLUXLENS_OFFLINE: (c) => String(c.offline),
  FLUXLENS_RENDER_FORKS: (c) => String(c.renderForks),
  FLUXLENS_RENDER_DRAFTS: (c) => String(c.renderDrafts),
  FLUXLENS_REPOSITORIES: (c) => unset(c.repositories?.join(',')),
  FLUXLENS_COMMENT: (c) => c.comment,
  FLUXLENS_WORKER_CONCURRENCY: (c) => String(c.workerConcurrency),
  FLUXLENS_WORKER_LOCK_SECONDS: (c) => String(c.workerLockMs / 1000),
  FLUXLENS_SHUTDOWN_GRACE_SECONDS: (c) => String(c.shutdownGraceMs / 1000),
  FLUXLENS_RESYNC_INTERVAL_SECONDS: (c) => String(c.resyncIntervalMs / 1000),
  FLUXLENS_METRICS_PORT: (c) => String(c.metricsPort),
  FLUXLENS_LOG_LEVEL: (c) => c.logLevel,
};

/** The config of a server whose environment leaves `name` out (and still starts). */
function configWithout(name: string): ServiceConfig {
  const env =
    name === 'FLUXLENS_WEBHOOK_SECRET' ? { FLUXLENS_INSECURE_NO_WEBHOOK_SECRET: 'true' } : SIGNED;
  return load('server', env);
}

describe('the configuration table in docs/configuration.md', () => {
  it('lists every variable fluxlens reads, and nothing else', () => {
    expect([...configurationTable().keys()].sort()).toEqual([...ENV_VARIABLES].sort());
  });

  it.each(ENV_VARIABLES)('shows the default the code gives %s', (name) => {
    const shown = SHOWN_DEFAULT[name];
    if (shown === undefined) throw new Error(`${name} has no reading in SHOWN_DEFAULT`);
    expect(configurationTable().get(name)).toBe(shown(configWithout(name)));
  });

  it('names every variable that may be read from a file', () => {
    const named = configurationSection().match(/FLUXLENS_[A-Z_]+_FILE\b/g) ?? [];
    expect([...new Set(named)].sort()).toEqual([...SECRET_FILE_VARIABLES].sort());
  });
});
