/**
 * The only reader of process.env. Every setting fluxlens takes from the environment is
 * declared, documented and validated here; tests pass their own env to loadConfig and
 * loadServiceConfig. The table in docs/configuration.md is checked against these schemas.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { SetupError } from './errors.js';
import { readRegistryConfig } from './registry-config.js';

const positiveInt = (max: number) => z.coerce.number().int().min(1).max(max);
const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));
/** An http(s) URL without its trailing slashes, as every URL setting is read. */
export const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));

/**
 * The defaults of the tool and chart-download limits below, for what runs without a loaded
 * config (a ToolRunner call that sets no limit, render's baseline settings): the same
 * values everywhere, whichever way a run is set up.
 */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
export const DEFAULT_CHART_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_CHART_RESPONSE_TIMEOUT_MS = 30_000;
/**
 * How a render treats substituteFrom and valuesFrom sources that only the cluster holds,
 * when neither the request nor the repository's policy says: `assume` them present.
 */
export const DEFAULT_IN_CLUSTER_SOURCES = 'assume';

/** What the CLI and the worker both read: tools, limits, the cache. */
const RenderEnv = z.object({
  /** Where scripts/install-tools puts pinned tools; searched before PATH. */
  FLUXLENS_TOOLS_DIR: z.string().min(1).optional(),
  /**
   * Parallel kustomize builds. Defaults to the CPU count: builds are CPU-bound and
   * short, so more would only queue.
   */
  FLUXLENS_CONCURRENCY: positiveInt(64).optional(),
  /** Seconds one tool run may take before it is killed and reported as a per-producer error. */
  FLUXLENS_TOOL_TIMEOUT_SECONDS: positiveInt(3600).default(DEFAULT_TOOL_TIMEOUT_MS / 1000),
  /** Cap on one tool run's output; a bigger render is an error rather than an OOM. */
  FLUXLENS_MAX_OUTPUT_MB: positiveInt(4096).default(DEFAULT_MAX_OUTPUT_BYTES / 1024 / 1024),
  /** Chart cache, git mirrors, scratch folders and (inline mode) results live under it. */
  FLUXLENS_CACHE_DIR: z.string().min(1).optional(),
  /**
   * Megabytes of per-producer build results kept under the cache folder (least recently
   * used go first); 0 turns the render cache off.
   */
  FLUXLENS_RENDER_CACHE_MB: z.coerce.number().int().min(0).max(1_048_576).default(1024),
  /**
   * `off`: every kustomize build is a kustomize process, even where kustomize-server is
   * installed (which serves all builds of a render from one process).
   */
  FLUXLENS_KUSTOMIZE_SERVER: z.enum(['on', 'off']).default('on'),
  /**
   * `off`: every HelmRelease is a helm process, even where helm-server is installed (which
   * renders all releases of a render in one process).
   */
  FLUXLENS_HELM_SERVER: z.enum(['on', 'off']).default('on'),
  /** Seconds a chart download may take to connect. */
  FLUXLENS_CHART_CONNECT_TIMEOUT_SECONDS: positiveInt(600).default(
    DEFAULT_CHART_CONNECT_TIMEOUT_MS / 1000,
  ),
  /** Seconds a connected chart server may take to start answering. */
  FLUXLENS_CHART_RESPONSE_TIMEOUT_SECONDS: positiveInt(3600).default(
    DEFAULT_CHART_RESPONSE_TIMEOUT_MS / 1000,
  ),
  /**
   * Whether chart URLs a repository declares may reach loopback, private, link-local and
   * other non-public addresses: `allow` (the CLI's default) or `deny` (the service's).
   */
  FLUXLENS_CHART_PRIVATE_ADDRESSES: z.enum(['allow', 'deny']).default('allow'),
  /**
   * Seconds a chart that could not be fetched (unreachable, refused, a bound, a refused
   * login) is reported unavailable without asking again, by every render sharing the
   * cache; 0 asks every time. Five minutes spares a burst of PRs and back-to-back CLI runs
   * the wait, and uses a registry again soon after it is back.
   */
  FLUXLENS_CHART_UNAVAILABLE_TTL_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  /**
   * A Docker config.json-style file of chart registry credentials by host (what
   * `helm registry login` writes). Unset: no credentials at all; the user's own helm and
   * Docker configuration is never read, so that a laptop's logins do not leak into reviews.
   */
  FLUXLENS_REGISTRY_CONFIG: z.string().min(1).optional(),
  PATH: z.string().default(''),
});

/** Settings only the service (`fluxlens serve`, `fluxlens worker`) reads. */
const ServiceEnv = z.object({
  /** Redis for the durable queue and results; unset runs an inline queue in `serve`. */
  FLUXLENS_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /**
   * A PEM file of the certificate authorities trusted for a rediss:// FLUXLENS_REDIS_URL
   * (a private CA); unset, the system's CAs.
   */
  FLUXLENS_REDIS_CA_PATH: z.string().min(1).optional(),
  /**
   * Days a PR's stored result (report pages, the results API) is kept after its last review;
   * 0 keeps results forever. The default matches FLUXLENS_REPORT_LINK_DAYS, so a link in a
   * comment finds its report for as long as the link is valid.
   */
  FLUXLENS_RESULT_TTL_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  /** Key prefix in Redis, so several installations can share one server. */
  FLUXLENS_REDIS_PREFIX: z.string().min(1).max(64).default('fluxlens'),
  /** HTTP port of `fluxlens serve`. */
  FLUXLENS_PORT: positiveInt(65535).default(8080),
  /** Address `fluxlens serve` listens on. */
  FLUXLENS_HOST: z.string().min(1).default('0.0.0.0'),
  /** The GitHub App's webhook secret; X-Hub-Signature-256 is checked against it. */
  FLUXLENS_WEBHOOK_SECRET: z.string().min(1).optional(),
  /**
   * The webhook secret being replaced: deliveries signed with it are accepted too while the
   * GitHub App changes over to FLUXLENS_WEBHOOK_SECRET. Unset once it has.
   */
  FLUXLENS_WEBHOOK_SECRET_PREVIOUS: z.string().min(1).optional(),
  /** Accept unsigned webhooks. For local development only: anyone could trigger reviews. */
  FLUXLENS_INSECURE_NO_WEBHOOK_SECRET: flag.default(false),
  /**
   * Seconds a webhook body may take to arrive; a slower one is refused and its connection
   * closed. GitHub sends a delivery in well under a second and gives up after 10 s.
   */
  FLUXLENS_WEBHOOK_BODY_TIMEOUT_SECONDS: positiveInt(300).default(20),
  /**
   * Webhook bodies over 256 KiB (or of no declared length) read at once; more get 503.
   * GitHub's deliveries are tens of kB, so these slots bound what a flood of big ones costs.
   */
  FLUXLENS_WEBHOOK_LARGE_BODIES: positiveInt(1024).default(4),
  /**
   * Comma-separated bot logins (`name[bot]`) whose `/fluxlens render` counts; every other
   * bot's is ignored, and fluxlens's own always.
   */
  FLUXLENS_COMMAND_BOTS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[\w.-]+(\[bot\])?$/, 'entries must be logins')))
    .optional(),
  /** The GitHub App's numeric id; with the private key, App mode (check runs). */
  FLUXLENS_GITHUB_APP_ID: z
    .string()
    .regex(/^[1-9]\d*$/, "must be the App's numeric id")
    .optional(),
  /** The App's private key (PEM). */
  FLUXLENS_GITHUB_PRIVATE_KEY: z.string().min(1).optional(),
  /** A personal access token instead of an App: commit statuses instead of check runs. */
  FLUXLENS_GITHUB_TOKEN: z.string().min(1).optional(),
  /** REST API base; GitHub Enterprise Server: `https://HOST/api/v3`. */
  FLUXLENS_GITHUB_API_URL: httpUrl.default('https://api.github.com'),
  /** Base of clone URLs: `${url}/${owner}/${repo}.git`. */
  FLUXLENS_GITHUB_GIT_URL: z
    .string()
    .regex(/^(https?|git):\/\/[^\s@]+$/, 'must be an http(s):// or git:// URL without credentials')
    .transform((u) => u.replace(/\/+$/, ''))
    .default('https://github.com'),
  /**
   * Root URL of a Gitea or Forgejo server (`https://forge.example.com`): its API is under
   * /api/v1 and clones under the URL itself. With FLUXLENS_GITEA_TOKEN it turns on
   * POST /webhooks/gitea, beside GitHub's.
   */
  FLUXLENS_GITEA_URL: httpUrl.optional(),
  /**
   * An access token of the Gitea/Forgejo account fluxlens writes as (scopes: repository
   * read and write, issue read and write, user read); git fetches with it too.
   */
  FLUXLENS_GITEA_TOKEN: z.string().min(1).optional(),
  /** Verifies Gitea/Forgejo deliveries; FLUXLENS_WEBHOOK_SECRET when unset. */
  FLUXLENS_GITEA_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Bearer token of the re-render API and of report pages; the API is off without it. */
  FLUXLENS_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * Re-render API calls per minute per API token, on every server together (Redis) or per
   * server (inline); past it the API answers 429 with Retry-After. 60 is one a second,
   * well past what people and CI ask for, while a flood costs nothing but the count.
   */
  FLUXLENS_API_RENDERS_PER_MINUTE: positiveInt(100_000).default(60),
  /** Re-render API calls per minute per repository owner (one App installation each). */
  FLUXLENS_OWNER_RENDERS_PER_MINUTE: positiveInt(100_000).default(30),
  /**
   * `/fluxlens render` comments per minute per App installation; past it they are ignored
   * without a reaction. Comments on a PR whose review is already waiting cost nothing
   * else, but they count: 30 leaves room for every PR of a busy organisation.
   */
  FLUXLENS_COMMANDS_PER_MINUTE: positiveInt(100_000).default(30),
  /** Where users reach `fluxlens serve`; comments link to the HTML report when set. */
  FLUXLENS_PUBLIC_URL: httpUrl.optional(),
  /** Key of the signed report links in comments; derived from the webhook secret when unset. */
  FLUXLENS_REPORT_SIGNING_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  /** How long a signed report link stays valid. */
  FLUXLENS_REPORT_LINK_DAYS: positiveInt(365).default(30),
  /**
   * Render from the chart cache and the repository only, never fetching a chart: for
   * installations without network access to chart registries.
   */
  FLUXLENS_OFFLINE: flag.default(false),
  /** Render PRs from forks (their content is untrusted and their authors are not members). */
  FLUXLENS_RENDER_FORKS: flag.default(false),
  /** Render draft PRs too. */
  FLUXLENS_RENDER_DRAFTS: flag.default(false),
  /** Comma-separated `owner/repo` list; when set, every other repository is ignored. */
  FLUXLENS_REPOSITORIES: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'entries must be owner/repo')))
    .optional(),
  /** When the sticky comment is written: always, only with rendered changes, or never. */
  FLUXLENS_COMMENT: z.enum(['always', 'changes', 'never']).default('always'),
  /** Reviews one worker runs at once; each also runs FLUXLENS_CONCURRENCY builds. */
  FLUXLENS_WORKER_CONCURRENCY: positiveInt(64).default(2),
  /**
   * Seconds a worker's hold on a running review lasts without renewal: a worker that dies
   * (SIGKILL, a lost node) has its review taken over by another this long after. Every
   * worker of one queue must use the same value.
   */
  FLUXLENS_WORKER_LOCK_SECONDS: positiveInt(3600).default(30),
  /** Seconds running reviews get to finish on SIGTERM before they go back to the queue. */
  FLUXLENS_SHUTDOWN_GRACE_SECONDS: positiveInt(3600).default(60),
  /** Seconds between resyncs of open PRs (recovers webhooks lost while down); 0 is off. */
  FLUXLENS_RESYNC_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(86_400).default(0),
  /** Port of a `fluxlens worker` process's /metrics and /healthz; 0 turns them off. */
  FLUXLENS_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9090),
  /** pino level of the JSON logs. */
  FLUXLENS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
});

/** Secrets may come from a file (`NAME_FILE`, a mounted Kubernetes Secret) instead. */
const FILE_VARIABLES = [
  'FLUXLENS_WEBHOOK_SECRET',
  'FLUXLENS_WEBHOOK_SECRET_PREVIOUS',
  'FLUXLENS_GITHUB_PRIVATE_KEY',
  'FLUXLENS_GITHUB_TOKEN',
  'FLUXLENS_GITEA_TOKEN',
  'FLUXLENS_GITEA_WEBHOOK_SECRET',
  'FLUXLENS_API_TOKEN',
  'FLUXLENS_REDIS_URL',
  'FLUXLENS_REPORT_SIGNING_KEY',
] as const;

/**
 * Secrets a deployment may leave out of its Secret (deploy/ mounts their keys with
 * `optional: true`): a `_FILE` naming a file that does not exist reads as unset. Any other
 * read error, and a missing file of any other secret, still stops startup.
 */
const OPTIONAL_FILE_VARIABLES: ReadonlySet<string> = new Set([
  'FLUXLENS_WEBHOOK_SECRET_PREVIOUS',
  'FLUXLENS_API_TOKEN',
  'FLUXLENS_REPORT_SIGNING_KEY',
]);

/** Every variable fluxlens reads, for docs/configuration.md's table and its test. */
export const ENV_VARIABLES: readonly string[] = [
  ...Object.keys(RenderEnv.shape).filter((k) => k !== 'PATH'),
  ...Object.keys(ServiceEnv.shape),
];
export const SECRET_FILE_VARIABLES: readonly string[] = FILE_VARIABLES.map((v) => `${v}_FILE`);

/** Variables a tool run may inherit; anything else (tokens, secrets) is kept from tools. */
const TOOL_ENV_ALLOWLIST = ['HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ', 'USER'] as const;

function parse<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // The variable's name and what is wrong with it; never its value (it may be a secret).
    throw new SetupError(
      `invalid environment: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
    );
  }
  return parsed.data;
}

/** What a config takes from the machine rather than from a setting. */
interface Machine {
  /** The environment a tool run inherits its allowlisted variables from. */
  env: NodeJS.ProcessEnv;
  cpuCount: number;
}

/** The render settings in the shape the code uses; the CLI and the service share it. */
function renderConfig(e: z.output<typeof RenderEnv>, machine: Machine) {
  const toolEnv: Record<string, string> = {};
  for (const key of TOOL_ENV_ALLOWLIST) {
    const value = machine.env[key];
    if (value !== undefined) toolEnv[key] = value;
  }
  const cacheDir = e.FLUXLENS_CACHE_DIR ?? join(homedir(), '.fluxlens', 'cache');
  return {
    toolsBinDir: join(e.FLUXLENS_TOOLS_DIR ?? join(homedir(), '.fluxlens', 'tools'), 'bin'),
    /** PATH for tool lookups and for tools that call tools (flux-local calls kustomize). */
    path: e.PATH,
    toolEnv,
    concurrency: e.FLUXLENS_CONCURRENCY ?? Math.max(1, machine.cpuCount),
    toolTimeoutMs: e.FLUXLENS_TOOL_TIMEOUT_SECONDS * 1000,
    maxOutputBytes: e.FLUXLENS_MAX_OUTPUT_MB * 1024 * 1024,
    /** The root of everything fluxlens keeps on disk. */
    cacheDir,
    chartCacheDir: join(cacheDir, 'charts'),
    /** Absent when the render cache is off. */
    renderCache:
      e.FLUXLENS_RENDER_CACHE_MB === 0
        ? undefined
        : { dir: join(cacheDir, 'renders'), maxBytes: e.FLUXLENS_RENDER_CACHE_MB * 1024 * 1024 },
    /** Build through kustomize-server where it is installed. */
    kustomizeServer: e.FLUXLENS_KUSTOMIZE_SERVER === 'on',
    /** Render HelmReleases through helm-server where it is installed. */
    helmServer: e.FLUXLENS_HELM_SERVER === 'on',
    chartNetwork: {
      privateAddresses: e.FLUXLENS_CHART_PRIVATE_ADDRESSES,
      connectTimeoutMs: e.FLUXLENS_CHART_CONNECT_TIMEOUT_SECONDS * 1000,
      responseTimeoutMs: e.FLUXLENS_CHART_RESPONSE_TIMEOUT_SECONDS * 1000,
      unavailableTtlMs: e.FLUXLENS_CHART_UNAVAILABLE_TTL_SECONDS * 1000,
      credentials:
        e.FLUXLENS_REGISTRY_CONFIG === undefined
          ? undefined
          : readRegistryConfig(resolve(e.FLUXLENS_REGISTRY_CONFIG)),
    },
  };
}

const cliConfigSchema = (machine: Machine) => RenderEnv.transform((e) => renderConfig(e, machine));

/** The service reads the render settings too, with the service's default. */
const ServiceRenderEnv = RenderEnv.extend({
  // A PR must not make the worker probe the network it runs in, unless the operator says so.
  FLUXLENS_CHART_PRIVATE_ADDRESSES:
    RenderEnv.shape.FLUXLENS_CHART_PRIVATE_ADDRESSES.unwrap().default('deny'),
});

const serviceConfigSchema = (
  role: 'server' | 'worker',
  machine: Machine,
  readFile: (path: string) => string,
) =>
  ServiceRenderEnv.extend(ServiceEnv.shape).transform((e) => {
    requireForRole(role, e);
    return {
      ...renderConfig(e, machine),
      redisUrl: e.FLUXLENS_REDIS_URL,
      /** PEM certificate authorities for a rediss:// URL; the system's when undefined. */
      redisCa: redisCa(e, readFile),
      /** Undefined: results are kept forever. */
      resultTtlSeconds:
        e.FLUXLENS_RESULT_TTL_DAYS === 0 ? undefined : e.FLUXLENS_RESULT_TTL_DAYS * 24 * 60 * 60,
      redisPrefix: e.FLUXLENS_REDIS_PREFIX,
      port: e.FLUXLENS_PORT,
      host: e.FLUXLENS_HOST,
      webhookSecret: e.FLUXLENS_WEBHOOK_SECRET,
      /** Accepted too while the GitHub App changes over to webhookSecret. */
      previousWebhookSecret: previousWebhookSecret(e),
      insecureNoWebhookSecret: e.FLUXLENS_INSECURE_NO_WEBHOOK_SECRET,
      webhookBodyTimeoutMs: e.FLUXLENS_WEBHOOK_BODY_TIMEOUT_SECONDS * 1000,
      webhookLargeBodies: e.FLUXLENS_WEBHOOK_LARGE_BODIES,
      commandBots: e.FLUXLENS_COMMAND_BOTS,
      github: {
        apiUrl: e.FLUXLENS_GITHUB_API_URL,
        gitUrl: e.FLUXLENS_GITHUB_GIT_URL,
        auth: githubAuth(e),
      },
      /** Gitea or Forgejo, when its URL and token are set. */
      gitea: giteaConfig(e),
      apiToken: e.FLUXLENS_API_TOKEN,
      /** Per minute: API renders per token and per owner, commands per installation. */
      rateLimits: {
        apiRendersPerToken: e.FLUXLENS_API_RENDERS_PER_MINUTE,
        apiRendersPerOwner: e.FLUXLENS_OWNER_RENDERS_PER_MINUTE,
        commandsPerInstallation: e.FLUXLENS_COMMANDS_PER_MINUTE,
      },
      publicUrl: e.FLUXLENS_PUBLIC_URL,
      reportSigningKey: e.FLUXLENS_REPORT_SIGNING_KEY,
      reportLinkDays: e.FLUXLENS_REPORT_LINK_DAYS,
      offline: e.FLUXLENS_OFFLINE,
      renderForks: e.FLUXLENS_RENDER_FORKS,
      renderDrafts: e.FLUXLENS_RENDER_DRAFTS,
      repositories: e.FLUXLENS_REPOSITORIES,
      comment: e.FLUXLENS_COMMENT,
      workerConcurrency: e.FLUXLENS_WORKER_CONCURRENCY,
      workerLockMs: e.FLUXLENS_WORKER_LOCK_SECONDS * 1000,
      shutdownGraceMs: e.FLUXLENS_SHUTDOWN_GRACE_SECONDS * 1000,
      resyncIntervalMs: e.FLUXLENS_RESYNC_INTERVAL_SECONDS * 1000,
      metricsPort: e.FLUXLENS_METRICS_PORT,
      logLevel: e.FLUXLENS_LOG_LEVEL,
    };
  });

export type Config = z.output<ReturnType<typeof cliConfigSchema>>;
export type ServiceConfig = z.output<ReturnType<typeof serviceConfigSchema>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cpuCount = 2): Config {
  return parse(cliConfigSchema({ env, cpuCount }), env);
}

/**
 * The service's settings, checked together: an invalid value, a missing webhook secret (the
 * server's), no Redis (a worker's) or a half-configured GitHub App stops startup with a
 * message naming the variable.
 */
export function loadServiceConfig(
  role: 'server' | 'worker',
  env: NodeJS.ProcessEnv = process.env,
  options: { cpuCount?: number; readFile?: (path: string) => string } = {},
): ServiceConfig {
  const machine = { env, cpuCount: options.cpuCount ?? 2 };
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, 'utf8'));
  return parse(serviceConfigSchema(role, machine, readFile), withSecretFiles(env, readFile));
}

function requireForRole(role: 'server' | 'worker', e: z.output<typeof ServiceEnv>): void {
  if (role === 'worker' && e.FLUXLENS_REDIS_URL === undefined) {
    throw new SetupError(
      'invalid environment: FLUXLENS_REDIS_URL is required: fluxlens worker takes its jobs from Redis (without Redis, fluxlens serve reviews in its own process)',
    );
  }
  if (
    role === 'server' &&
    e.FLUXLENS_WEBHOOK_SECRET === undefined &&
    !e.FLUXLENS_INSECURE_NO_WEBHOOK_SECRET
  ) {
    throw new SetupError(
      'invalid environment: FLUXLENS_WEBHOOK_SECRET is required (FLUXLENS_INSECURE_NO_WEBHOOK_SECRET=true accepts unsigned webhooks, for local development only)',
    );
  }
}

function previousWebhookSecret(e: z.infer<typeof ServiceEnv>): string | undefined {
  if (e.FLUXLENS_WEBHOOK_SECRET_PREVIOUS !== undefined && e.FLUXLENS_WEBHOOK_SECRET === undefined) {
    throw new SetupError(
      'invalid environment: FLUXLENS_WEBHOOK_SECRET_PREVIOUS is only used with FLUXLENS_WEBHOOK_SECRET, the secret that replaces it',
    );
  }
  return e.FLUXLENS_WEBHOOK_SECRET_PREVIOUS;
}

function redisCa(
  e: z.infer<typeof ServiceEnv>,
  readFile: (path: string) => string,
): string | undefined {
  const file = e.FLUXLENS_REDIS_CA_PATH;
  if (file === undefined) return undefined;
  if (!e.FLUXLENS_REDIS_URL?.startsWith('rediss://')) {
    throw new SetupError(
      'invalid environment: FLUXLENS_REDIS_CA_PATH is only used with a rediss:// FLUXLENS_REDIS_URL',
    );
  }
  try {
    return readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new SetupError(
      `invalid environment: FLUXLENS_REDIS_CA_PATH: cannot read ${file} (${code})`,
    );
  }
}

export type GitHubAuthConfig =
  | { kind: 'app'; appId: string; privateKey: string }
  | { kind: 'token'; token: string };

function githubAuth(e: z.infer<typeof ServiceEnv>): GitHubAuthConfig | undefined {
  const appId = e.FLUXLENS_GITHUB_APP_ID;
  const key = e.FLUXLENS_GITHUB_PRIVATE_KEY;
  if ((appId === undefined) !== (key === undefined)) {
    throw new SetupError(
      'invalid environment: FLUXLENS_GITHUB_APP_ID and FLUXLENS_GITHUB_PRIVATE_KEY go together',
    );
  }
  if (appId !== undefined && key !== undefined) {
    if (e.FLUXLENS_GITHUB_TOKEN !== undefined) {
      throw new SetupError(
        'invalid environment: set either FLUXLENS_GITHUB_APP_ID with FLUXLENS_GITHUB_PRIVATE_KEY, or FLUXLENS_GITHUB_TOKEN, not both',
      );
    }
    // A key pasted into one line of an env file keeps its line breaks as `\n`.
    return { kind: 'app', appId, privateKey: key.replace(/\\n/g, '\n') };
  }
  return e.FLUXLENS_GITHUB_TOKEN === undefined
    ? undefined
    : { kind: 'token', token: e.FLUXLENS_GITHUB_TOKEN };
}

export interface GiteaConfig {
  url: string;
  token: string;
  webhookSecret: string | undefined;
}

function giteaConfig(e: z.infer<typeof ServiceEnv>): GiteaConfig | undefined {
  const url = e.FLUXLENS_GITEA_URL;
  const token = e.FLUXLENS_GITEA_TOKEN;
  if ((url === undefined) !== (token === undefined)) {
    throw new SetupError(
      'invalid environment: FLUXLENS_GITEA_URL and FLUXLENS_GITEA_TOKEN go together',
    );
  }
  if (url === undefined || token === undefined) {
    if (e.FLUXLENS_GITEA_WEBHOOK_SECRET !== undefined) {
      throw new SetupError(
        'invalid environment: FLUXLENS_GITEA_WEBHOOK_SECRET is only used with FLUXLENS_GITEA_URL and FLUXLENS_GITEA_TOKEN',
      );
    }
    return undefined;
  }
  return {
    url,
    token,
    webhookSecret: e.FLUXLENS_GITEA_WEBHOOK_SECRET ?? e.FLUXLENS_WEBHOOK_SECRET,
  };
}

/**
 * `NAME_FILE` read into `NAME` (one trailing newline dropped); both set is an error, and so
 * is a file that cannot be read, but for a missing file of an optional secret.
 */
function withSecretFiles(
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of FILE_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if (env[name] !== undefined) {
      throw new SetupError(`invalid environment: set ${name} or ${name}_FILE, not both`);
    }
    try {
      out[name] = readFile(file).replace(/\r?\n$/, '');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      if (code === 'ENOENT' && OPTIONAL_FILE_VARIABLES.has(name)) continue;
      throw new SetupError(`invalid environment: ${name}_FILE: cannot read ${file} (${code})`);
    }
  }
  return out;
}
